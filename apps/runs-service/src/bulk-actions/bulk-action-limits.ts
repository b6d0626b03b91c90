import { QuotaExceededError, TooManyRequestsError } from '@aas/problem-details';

/** The limits on one user's bulk actions (docs/quotas-and-limits.md#bulk-actions). */
export interface BulkActionLimits {
  maxRuns: number;
  activePerUser: number;
  perHour: number;
}

/** What the creation transaction found of the user's actions, under the user's lock. */
export interface UserBulkActivity {
  active: number;
  /** Creation times within the last hour, oldest first. */
  createdLastHour: Date[];
}

/** Why the user may not create another action now, or null. */
export function creationRefusal(limits: BulkActionLimits, activity: UserBulkActivity, now: Date): QuotaExceededError | TooManyRequestsError | null {
  if (activity.active >= limits.activePerUser) {
    return new QuotaExceededError(
      `Quota active_bulk_actions_per_user (${limits.activePerUser}) reached: ${activity.active} of your bulk actions are queued or running; wait for one to finish, or abort one`,
      'active_bulk_actions_per_user',
      limits.activePerUser,
    );
  }
  if (activity.createdLastHour.length >= limits.perHour) {
    const oldest = activity.createdLastHour[activity.createdLastHour.length - limits.perHour];
    const retryAfter = Math.max(1, Math.ceil((oldest.getTime() + 3_600_000 - now.getTime()) / 1000));
    return new TooManyRequestsError(`At most ${limits.perHour} bulk actions may be created per hour`, retryAfter);
  }
  return null;
}

/** More runs matched than one action may take: nothing was created. */
export function tooManyRunsError(limits: BulkActionLimits): QuotaExceededError {
  return new QuotaExceededError(
    `Quota bulk_action_runs (${limits.maxRuns}, QUOTA_BULK_ACTION_RUNS) exceeded: the bulk action matches more runs; narrow its filter`,
    'bulk_action_runs',
    limits.maxRuns,
  );
}
