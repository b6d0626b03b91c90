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
      `You have ${activity.active} bulk actions queued or running (the limit is ${limits.activePerUser}): wait for one to finish, or abort one`,
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
    `The bulk action matches more than ${limits.maxRuns} runs (QUOTA_BULK_ACTION_RUNS): narrow its filter`,
    'bulk_action_runs',
    limits.maxRuns,
  );
}
