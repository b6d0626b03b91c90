/** BullMQ's largest priority. */
export const LOWEST_PRIORITY = 2_097_151;

/**
 * The BullMQ priority of an admitted run's job: 1 plus the runs its user had executing before it
 * (the first of a batch counts what was executing, the next one more). When every worker is busy,
 * a lower number is taken first, so the run of a user with few executing runs does not wait behind
 * the jobs of a user with many. Never 0: BullMQ runs jobs without a priority before all others.
 */
export function jobPriority(executingBefore: number): number {
  return Math.min(1 + Math.max(0, executingBefore), LOWEST_PRIORITY);
}

/** The outbox relay's priority for a `run.queued` job (OutboxJobPriorities): the one admission recorded in its payload. */
export function runQueuedJobPriority(payload: Record<string, unknown>): number | undefined {
  const { priority } = payload;
  return Number.isInteger(priority) && (priority as number) >= 1 && (priority as number) <= LOWEST_PRIORITY ? (priority as number) : undefined;
}
