import type { Schemas } from '@aas/sdk';
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api';
import { DataTable } from '../components/data-table';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { usePageTitle } from '../components/page-title';
import { WorkspacesPanel } from './workspaces-panel';
import { ConfirmButton } from '../components/confirm-button';

type Agent = Schemas['AgentDto'];
const column = createColumnHelper<Agent>();
const PAGE = 50;

export function agentLabel(agent: Pick<Agent, 'agent_id' | 'agent_name'>): string {
  const name = (agent.agent_name as { name?: string } | null | undefined)?.name;
  return name || `Agent ${agent.agent_id.slice(0, 8)}`;
}

/** Agents, by workspace: create, delete, move between workspaces; their deployment state. */
export function AgentsPage() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const workspaceId = params.get('workspace') ?? undefined;
  const workspaces = useQuery({ queryKey: ['workspaces'], queryFn: () => unwrap(api.GET('/v1/workspaces')) });
  const agents = useInfiniteQuery({
    queryKey: ['agents', workspaceId ?? 'all'],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => unwrap(api.GET('/v1/agents', { params: { query: { workspace_id: workspaceId, cursor: pageParam, limit: PAGE } } })),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const refresh = () => {
    void client.invalidateQueries({ queryKey: ['agents'] });
    void client.invalidateQueries({ queryKey: ['workspaces'] });
  };
  const create = useMutation({
    mutationFn: () => unwrap(api.POST('/v1/agents', { body: workspaceId ? { workspace_id: workspaceId } : {} })),
    onSuccess: (created) => {
      refresh();
      void navigate(`/agents/${created.agent.agent_id}`);
    },
  });
  const remove = useMutation({
    mutationFn: (agentId: string) => unwrap(api.DELETE('/v1/agents/{agent_id}', { params: { path: { agent_id: agentId } } })),
    onSettled: refresh,
  });
  const move = useMutation({
    mutationFn: async ({ agentId, target }: { agentId: string; target: string }) => {
      const result = await unwrap(api.POST('/v1/agents/{agent_id}/move', { params: { path: { agent_id: agentId } }, body: { workspace_id: target } }));
      if (!result.success) throw new Error(result.error ?? 'The agent was not moved');
      return result;
    },
    onSettled: refresh,
  });

  const workspaceList = workspaces.data?.workspaces ?? [];
  const columns = [
    column.accessor((a) => agentLabel(a), {
      id: 'name',
      header: 'Agent',
      cell: (c) => <Link to={`/agents/${c.row.original.agent_id}`}>{c.getValue()}</Link>,
    }),
    column.accessor('deployment_state', { header: 'Deployment', cell: (c) => <StatusBadge status={c.getValue() ?? 'not_deployed'} /> }),
    column.accessor('latest_run_status', { header: 'Latest run', cell: (c) => (c.getValue() ? <StatusBadge status={c.getValue()} /> : <span className="muted">none</span>) }),
    column.accessor('last_activity_at', { header: 'Last activity', cell: (c) => <When at={c.getValue()} /> }),
    column.accessor('workspace_id', {
      header: 'Workspace',
      cell: (c) => (
        <select
          aria-label={`Workspace of ${agentLabel(c.row.original)}`}
          value={c.getValue() ?? ''}
          onChange={(event) => move.mutate({ agentId: c.row.original.agent_id, target: event.target.value })}
        >
          {workspaceList.map((w) => (
            <option key={w.workspace_id} value={w.workspace_id}>
              {w.name}
            </option>
          ))}
        </select>
      ),
    }),
    column.display({
      id: 'delete',
      header: '',
      cell: (c) => (
        <ConfirmButton
          className="secondary outline small"
          label={`Delete ${agentLabel(c.row.original)}`}
          title={`Delete ${agentLabel(c.row.original)}?`}
          message={<p>Its runs, schedule, triggers and webhooks are deleted with it.</p>}
          confirmLabel="Delete agent"
          onConfirm={() => remove.mutate(c.row.original.agent_id)}
        >
          Delete
        </ConfirmButton>
      ),
    }),
  ];
  const rows = agents.data?.pages.flatMap((p) => p.agents) ?? [];
  const current = workspaceList.find((w) => w.workspace_id === workspaceId);
  usePageTitle(current ? current.name : 'Agents');

  return (
    <div className="with-sidebar">
      <WorkspacesPanel
        workspaces={workspaces}
        selected={workspaceId}
        onSelect={(id) => setParams(id ? { workspace: id } : {})}
      />
      <section>
        <div className="section-head">
          <h1>{current ? current.name : 'All agents'}</h1>
          <button type="button" onClick={() => create.mutate()} aria-busy={create.isPending}>
            New agent
          </button>
        </div>
        <ErrorNote error={create.error ?? remove.error ?? move.error} />
        {agents.isPending ? (
          <Loading what="agents" />
        ) : agents.isError ? (
          <ErrorNote error={agents.error} />
        ) : rows.length === 0 ? (
          <Empty>No agents here yet. Create one, give it instructions, and build it.</Empty>
        ) : (
          <>
            <DataTable label="Agents" columns={columns} data={rows} rowId={(a) => a.agent_id} />
            {agents.hasNextPage && (
              <button type="button" className="secondary outline" onClick={() => void agents.fetchNextPage()} aria-busy={agents.isFetchingNextPage}>
                Load more agents
              </button>
            )}
          </>
        )}
      </section>
    </div>
  );
}
