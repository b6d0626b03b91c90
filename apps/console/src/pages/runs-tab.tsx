import type { Schemas } from '@aas/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useForm } from 'react-hook-form';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api';
import { DataTable } from '../components/data-table';
import { Empty, ErrorNote, Loading } from '../components/feedback';
import { Pager } from '../components/pager';
import { StatusBadge } from '../components/status-badge';
import { When } from '../components/time';
import { useAgent } from './agent-page';
import { RUN_FILTERS, RunFilters, filterSetter, runQuery } from './run-filters';

type Run = Schemas['RunDto'];
const column = createColumnHelper<Run>();
const PAGE_SIZE = 20;

/** A build or a run, and what started it (the API, the schedule, an inbound webhook, an event trigger). */
export function runKind(run: Pick<Run, 'policy_type' | 'run_kind'>): string {
  const mode = run.policy_type === 'builder' ? 'build' : 'run';
  return run.run_kind ? `${mode} · ${run.run_kind}` : mode;
}

interface StartForm {
  user_message: string;
  skip_deploy_check: boolean;
}

/** The agent's runs with the API's filters and paging; start a run or a build. */
export function RunsTab() {
  const agent = useAgent();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page') ?? 1) || 1);
  const query = { page, page_size: PAGE_SIZE, ...runQuery(params, RUN_FILTERS) };
  const runs = useQuery({
    queryKey: ['runs', agent.agent_id, query],
    queryFn: () => unwrap(api.GET('/v1/agents/{agent_id}/runs', { params: { path: { agent_id: agent.agent_id }, query } })),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
  const start = useMutation({
    mutationFn: (body: Schemas['StartRunRequest']) => unwrap(api.POST('/v1/agents/{agent_id}/runs', { params: { path: { agent_id: agent.agent_id } }, body })),
    onSuccess: (result) => {
      void client.invalidateQueries({ queryKey: ['runs', agent.agent_id] });
      void client.invalidateQueries({ queryKey: ['agent', agent.agent_id] });
      void navigate(`/agents/${agent.agent_id}/runs/${result.run.run_id}`);
    },
  });
  const form = useForm<StartForm>({ defaultValues: { user_message: '', skip_deploy_check: false } });
  const setFilter = filterSetter(params, setParams);
  const columns = [
    column.accessor('run_number', { header: '#', cell: (c) => <Link to={`/agents/${agent.agent_id}/runs/${c.row.original.run_id}`}>Run {c.getValue()}</Link> }),
    column.accessor('status', { header: 'Status', cell: (c) => <StatusBadge status={c.getValue()} /> }),
    column.accessor('policy_type', { header: 'Kind', cell: (c) => runKind(c.row.original) }),
    column.accessor('goal', { header: 'Goal', cell: (c) => <span className="clip">{c.getValue() || '—'}</span> }),
    column.accessor('started_at', { header: 'Started', cell: (c) => <When at={c.getValue()} /> }),
    column.accessor('event_count', { header: 'Events' }),
  ];
  const deployed = agent.deployment_state === 'deployed';
  return (
    <div>
      <article>
        <form onSubmit={form.handleSubmit((values) => start.mutate({ run_mode: 'run', ...values }))}>
          <fieldset role="group">
            <input placeholder="What should the agent do? (its goal)" aria-label="Goal of the run" {...form.register('user_message')} />
            <button type="submit" aria-busy={start.isPending && start.variables?.run_mode === 'run'}>
              Start run
            </button>
          </fieldset>
          <div className="row-actions">
            <label>
              <input type="checkbox" role="switch" {...form.register('skip_deploy_check')} />
              Start even if not deployed
            </label>
            <button
              type="button"
              className="secondary"
              onClick={() => start.mutate({ run_mode: 'build', user_message: form.getValues('user_message') || undefined })}
              aria-busy={start.isPending && start.variables?.run_mode === 'build'}
            >
              {deployed ? 'Build again' : 'Build and deploy'}
            </button>
          </div>
        </form>
        <ErrorNote error={start.error} />
      </article>
      <RunFilters params={params} setFilter={setFilter} open={RUN_FILTERS.some((f) => params.get(f))} />
      {runs.isPending ? (
        <Loading what="runs" />
      ) : runs.isError ? (
        <ErrorNote error={runs.error} />
      ) : runs.data.runs.length === 0 ? (
        <Empty>{RUN_FILTERS.some((f) => params.get(f)) ? 'No run matches these filters.' : deployed ? 'No runs yet. Start one above.' : 'No runs yet. Build the agent to deploy it, then start runs.'}</Empty>
      ) : (
        <>
          <DataTable label="Runs" columns={columns} data={runs.data.runs} rowId={(r) => r.run_id} />
          <Pager
            page={page}
            pageSize={PAGE_SIZE}
            total={runs.data.total_runs}
            onPage={(p) => {
              const next = new URLSearchParams(params);
              next.set('page', String(p));
              setParams(next);
            }}
          />
        </>
      )}
    </div>
  );
}
