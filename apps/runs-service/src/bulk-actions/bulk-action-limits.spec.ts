import { QuotaExceededError, TooManyRequestsError } from '@aas/problem-details';
import { creationRefusal, tooManyRunsError } from './bulk-action-limits';

const limits = { maxRuns: 10, activePerUser: 2, perHour: 3 };
const now = new Date('2026-11-28T02:00:00Z');
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000);

describe(creationRefusal.name, () => {
  it('allows a creation under every limit', () => {
    expect(creationRefusal(limits, { active: 1, createdLastHour: [ago(30), ago(10)] }, now)).toBeNull();
  });

  it('refuses a third active action with a 422 naming active_bulk_actions_per_user', () => {
    const refusal = creationRefusal(limits, { active: 2, createdLastHour: [] }, now);
    expect(refusal).toBeInstanceOf(QuotaExceededError);
    expect(refusal).toMatchObject({ quota: 'active_bulk_actions_per_user', limit: 2 });
  });

  it('refuses past the hourly rate, retrying once the oldest creation of the window is an hour old', () => {
    const refusal = creationRefusal(limits, { active: 0, createdLastHour: [ago(50), ago(20), ago(5)] }, now);
    expect(refusal).toBeInstanceOf(TooManyRequestsError);
    expect((refusal as TooManyRequestsError).retryAfterSeconds).toBe(10 * 60);
  });
});

describe(tooManyRunsError.name, () => {
  it('names the bulk_action_runs quota and its value', () => {
    expect(tooManyRunsError(limits)).toMatchObject({ quota: 'bulk_action_runs', limit: 10 });
    expect(tooManyRunsError(limits).message).toContain('QUOTA_BULK_ACTION_RUNS');
  });
});
