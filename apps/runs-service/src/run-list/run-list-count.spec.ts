import { ListRunsMessage } from '@aas/contracts';
import { runListCountQuery, runModeOf } from './run-list-count';

const AGENT = '00000000-0000-4000-8000-0000000000a1';
const USER = '00000000-0000-4000-8000-0000000000b2';
const request = (filters: Partial<ListRunsMessage> = {}): ListRunsMessage =>
  Object.assign(new ListRunsMessage(), { agent_id: AGENT, user_id: USER, ...filters });
const base = 'SELECT coalesce(sum(runs), 0) AS total FROM run_list_counts WHERE agent_id = $1 AND user_id = $2';

describe(runListCountQuery.name, () => {
  it('sums the agent and user rows without filters', () => {
    expect(runListCountQuery(request())).toEqual({ sql: base, parameters: [AGENT, USER] });
  });

  it('tests every column an equality filter tests, each as a parameter', () => {
    expect(
      runListCountQuery(
        request({ filter_status: 'paused', filter_policy_type: 'runner', filter_policy_group: 'builder', filter_user_email: 'A@B.test' }),
      ),
    ).toEqual({
      sql: `${base} AND status = $3 AND policy_type = $4 AND run_mode = $5 AND user_email_lower = lower($6)`,
      parameters: [AGENT, USER, 'paused', 'runner', 'build', 'A@B.test'],
    });
  });

  it('counts finished runs by is_finished, not by status', () => {
    expect(runListCountQuery(request({ filter_status: 'finished' }))).toEqual({ sql: `${base} AND is_finished`, parameters: [AGENT, USER] });
  });

  it('leaves empty filters out, as the run query does', () => {
    expect(runListCountQuery(request({ filter_status: '', filter_policy_type: '', filter_user_email: '' }))).toEqual({
      sql: base,
      parameters: [AGENT, USER],
    });
  });

  it.each<[string, Partial<ListRunsMessage>]>([
    ['a run id', { filter_run_id: 'x' }],
    ['an empty run id (it matches nothing)', { filter_run_id: '' }],
    ['a start bound', { filter_started_after: '2026-01-01T00:00:00Z' }],
    ['an end bound', { filter_started_before: '2026-01-01T00:00:00Z' }],
    ['a goal', { filter_status: 'completed', filter_goal: 'deploy' }],
    ['a replay origin', { filter_replay_of: AGENT }],
    ['a source run', { filter_status: 'completed', filter_source_run_id: AGENT }],
  ])('is undefined with %s, which only the runs can answer', (_, filters) => {
    expect(runListCountQuery(request(filters))).toBeUndefined();
  });
});

describe(runModeOf.name, () => {
  it('maps builder to build runs and runner to run-mode runs', () => {
    expect(runModeOf('builder')).toBe('build');
    expect(runModeOf('runner')).toBe('run');
  });
});
