import { ListRunsMessage, ListRunsQuery } from '@aas/contracts';

/** filter_policy_group names a run mode: builder for build runs, runner for run-mode runs. */
export function runModeOf(policyGroup: 'builder' | 'runner'): 'build' | 'run' {
  return policyGroup === 'builder' ? 'build' : 'run';
}

/**
 * The statement that counts the runs a list request matches from
 * run_list_counts (runs per agent, user, status, is_finished, run_mode,
 * policy_type and lower(user_email), kept by triggers: see the migration
 * RunListIndexesAndCounts1763920000000), or undefined when a filter tests something it
 * does not keep (run id, start time, goal, trigger kind, replay origin, source run) and the runs themselves have to be
 * counted. Each condition is the one the list applies to the runs (postgres-run-list.store.ts).
 */
export function runListCountQuery(message: ListRunsMessage): { sql: string; parameters: unknown[] } | undefined {
  return countsQuery(message, ['agent_id = $1', 'user_id = $2'], [message.agent_id, message.user_id]);
}

/** The same from run_list_counts for the runs of many agents of one user (GET /v1/runs), or undefined. */
export function runListCountAcrossAgentsQuery(
  query: ListRunsQuery,
  userId: string,
  agentIds: string[],
): { sql: string; parameters: unknown[] } | undefined {
  return countsQuery(query, ['user_id = $1', 'agent_id = ANY($2::uuid[])'], [userId, agentIds]);
}

function countsQuery(query: ListRunsQuery, where: string[], parameters: unknown[]): { sql: string; parameters: unknown[] } | undefined {
  const uncounted = [query.filter_started_after, query.filter_started_before, query.filter_goal, query.filter_trigger_kind, query.filter_replay_of, query.filter_source_run_id];
  if (query.filter_run_id !== undefined || uncounted.some(Boolean)) return undefined;
  const test = (column: string, value: unknown, wrap = (p: string) => p) => where.push(`${column} = ${wrap(`$${parameters.push(value)}`)}`);
  if (query.filter_status === 'finished') where.push('is_finished');
  else if (query.filter_status) test('status', query.filter_status);
  if (query.filter_policy_type) test('policy_type', query.filter_policy_type);
  if (query.filter_policy_group) test('run_mode', runModeOf(query.filter_policy_group));
  if (query.filter_user_email) test('user_email_lower', query.filter_user_email, (p) => `lower(${p})`);
  return { sql: `SELECT coalesce(sum(runs), 0) AS total FROM run_list_counts WHERE ${where.join(' AND ')}`, parameters };
}
