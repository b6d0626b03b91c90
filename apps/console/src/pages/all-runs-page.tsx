import type { Schemas } from '@aas/sdk';
import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { Link, useSearchParams } from 'react-router';
import { api, unwrap } from '../api';
import { DataTable } from '../components/data-table';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { usePageTitle } from '../components/page-title';
import { Pager } from '../components/pager';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { agentLabel } from './agents-page';
import { RunDuration } from './run-duration-cell';
import { RUN_FILTERS, RunFilters, filterSetter, runQuery } from './run-filters';
import { RunIdSearch } from './run-id-search';

type Run = Schemas['RunDto'];
const column = createColumnHelper<Run>();
const PAGE_SIZE = 25;
/** The runs linked to one run, as its page links them (no control of their own: a line says which and clears them). */
const LINK_FILTERS = {
  filter_run_id: 'run',
  filter_replay_of: 'the replays of run',
  filter_source_run_id: 'the runs started by the end of run',
} as const;
const FILTERS = [...RUN_FILTERS, 'filter_agent_id', 'filter_workspace_id', ...(Object.keys(LINK_FILTERS) as (keyof typeof LINK_FILTERS)[])] as const;

/** The names of the agents of the runs shown, from the same cache the agent pages fill. */
function useAgentNames(agentIds: string[]): Map<string, string> {
  const agents = useQueries({
    queries: agentIds.map((agentId) => ({
      queryKey: ['agent', agentId],
      queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}', { params: { path: { agent_id: agentId } } })),
      staleTime: 60_000,
    })),
  });
  return new Map(agentIds.map((id, i) => [id, agents[i]?.data ? agentLabel(agents[i].data.agent) : agentLabel({ agent_id: id })]));
}

/** The caller's runs across their agents: the API's filters saved in the URL, paging, and search by run id. */
export function AllRunsPage() {
  usePageTitle('All runs');
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const query = { page, page_size: PAGE_SIZE, ...runQuery(params, FILTERS) };
  const runs = useQuery({
    queryKey: ['all-runs', query],
    queryFn: () => unwrap(api.GET('/v1/runs', { params: { query } })),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
  const names = useAgentNames([...new Set(runs.data?.runs.map((r) => r.agent_id) ?? [])]);
  const titles = new Map(runs.data?.all_run_summaries.map((s) => [s.run_id, s.title]) ?? []);
  const setFilter = filterSetter(params, setParams);
  const filtered = FILTERS.some((f) => params.get(f));
  const columns = [
    column.accessor('agent_id', { header: 'Agent', cell: (c) => <Link to={`/agents/${c.getValue()}`}>{names.get(c.getValue())}</Link> }),
    column.accessor('run_number', { header: 'Run', cell: (c) => <Link to={`/agents/${c.row.original.agent_id}/runs/${c.row.original.run_id}`}>Run {c.getValue()}</Link> }),
    column.accessor('status', { header: 'Status', cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('started_at', { header: 'Started', cell: (c) => <When at={c.getValue()} /> }),
    column.display({ id: 'duration', header: 'Duration', cell: (c) => <RunDuration run={c.row.original} /> }),
    column.accessor('goal', { header: 'Goal or title', cell: (c) => <span className="clip">{titles.get(c.row.original.run_id) || c.getValue() || '—'}</span> }),
  ];
  return (
    <section>
      <div className="section-head">
        <h1>All runs</h1>
        <span className="spacer" />
        {runs.data && (
          <span className="muted" data-testid="runs-total">
            {runs.data.total_runs_is_estimate ? 'about ' : ''}
            {runs.data.total_runs.toLocaleString()} run{runs.data.total_runs === 1 ? '' : 's'}
          </span>
        )}
      </div>
      <RunIdSearch />
      <LinkedRuns params={params} />
      <RunFilters params={params} setFilter={setFilter} open={filtered} extra={<AgentFilters params={params} setFilter={setFilter} />} />
      {runs.isPending ? (
        <Loading what="runs" />
      ) : runs.isError ? (
        <ErrorNote error={runs.error} />
      ) : runs.data.runs.length === 0 ? (
        <Empty>{filtered ? 'No run matches these filters.' : 'No runs yet. Start one from an agent’s page.'}</Empty>
      ) : (
        <>
          <DataTable label="All runs" columns={columns} data={runs.data.runs} rowId={(r) => r.run_id} />
          <Pager
            page={page}
            pageSize={PAGE_SIZE}
            total={runs.data.total_runs}
            estimate={runs.data.total_runs_is_estimate}
            onPage={(p) => {
              const next = new URLSearchParams(params);
              next.set('page', String(p));
              setParams(next);
            }}
          />
        </>
      )}
    </section>
  );
}

/** Narrow to one agent or one workspace (the agents of the first page of the list, which is up to 200). */
function AgentFilters({ params, setFilter }: { params: URLSearchParams; setFilter: (name: string, value: string) => void }) {
  const agents = useQuery({ queryKey: ['agents', 'picker'], queryFn: () => unwrap(api.GET('/v1/agents', { params: { query: { limit: 200 } } })), staleTime: 60_000 });
  const workspaces = useQuery({ queryKey: ['workspaces'], queryFn: () => unwrap(api.GET('/v1/workspaces')) });
  const agentId = params.get('filter_agent_id') ?? '';
  const known = agents.data?.agents ?? [];
  return (
    <>
      <label>
        Agent
        <select value={agentId} onChange={(e) => setFilter('filter_agent_id', e.target.value)}>
          <option value="">any</option>
          {agentId && !known.some((a) => a.agent_id === agentId) && <option value={agentId}>{agentLabel({ agent_id: agentId })}</option>}
          {known.map((agent) => (
            <option key={agent.agent_id} value={agent.agent_id}>
              {agentLabel(agent)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Workspace
        <select value={params.get('filter_workspace_id') ?? ''} onChange={(e) => setFilter('filter_workspace_id', e.target.value)}>
          <option value="">any</option>
          {(workspaces.data?.workspaces ?? []).map((w) => (
            <option key={w.workspace_id} value={w.workspace_id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}

/** Which runs a run's page linked to, with a way back to all of them. */
function LinkedRuns({ params }: { params: URLSearchParams }) {
  const linked = (Object.keys(LINK_FILTERS) as (keyof typeof LINK_FILTERS)[]).filter((name) => params.get(name));
  return linked.map((name) => {
    const rest = new URLSearchParams(params);
    rest.delete(name);
    rest.delete('page');
    return (
      <p key={name} className="muted" data-testid="linked-runs">
        Showing {LINK_FILTERS[name]} <code>{params.get(name)}</code> · <Link to={`/runs?${rest}`}>show every run</Link>
      </p>
    );
  });
}
