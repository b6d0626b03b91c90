import { ListRunsMessage } from '@aas/contracts';

/** filter_policy_group names a run mode: builder for build runs, runner for run-mode runs. */
export function runModeOf(policyGroup: 'builder' | 'runner'): 'build' | 'run' {
  return policyGroup === 'builder' ? 'build' : 'run';
}

/**
 * The statement that counts the runs a list request matches from
 * run_list_counts (runs per agent, user, status, is_finished, run_mode,
 * policy_type and lower(user_email), kept by triggers: see the migration
 * RunListIndexesAndCounts1763920000000), or undefined when a filter tests something it
 * does not keep (run id, start time, goal, trigger kind) and the runs themselves have to be
 * counted. Each condition is the one the list applies to the runs (postgres-run-list.store.ts).
 */
export function runListCountQuery(message: ListRunsMessage): { sql: string; parameters: unknown[] } | undefined {
  if (
    message.filter_run_id !== undefined ||
    message.filter_started_after ||
    message.filter_started_before ||
    message.filter_goal ||
    message.filter_trigger_kind
  ) {
    return undefined;
  }
  const parameters: unknown[] = [message.agent_id, message.user_id];
  const where = ['agent_id = $1', 'user_id = $2'];
  const test = (column: string, value: unknown, wrap = (p: string) => p) => where.push(`${column} = ${wrap(`$${parameters.push(value)}`)}`);
  if (message.filter_status === 'finished') where.push('is_finished');
  else if (message.filter_status) test('status', message.filter_status);
  if (message.filter_policy_type) test('policy_type', message.filter_policy_type);
  if (message.filter_policy_group) test('run_mode', runModeOf(message.filter_policy_group));
  if (message.filter_user_email) test('user_email_lower', message.filter_user_email, (p) => `lower(${p})`);
  return { sql: `SELECT coalesce(sum(runs), 0) AS total FROM run_list_counts WHERE ${where.join(' AND ')}`, parameters };
}
