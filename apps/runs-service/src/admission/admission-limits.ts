/** Executing runs allowed at once (null: no limit), from RUN_CONCURRENCY_PER_USER and RUN_CONCURRENCY_PER_AGENT. */
export interface AdmissionLimits {
  perUser: number | null;
  perAgent: number | null;
}

/** The settings' 0 means no limit. */
export function admissionLimits(perUser: number, perAgent: number): AdmissionLimits {
  return { perUser: perUser === 0 ? null : perUser, perAgent: perAgent === 0 ? null : perAgent };
}

/**
 * Whether the limits leave fairness to the workers' capacity: a user allowed at least as many
 * executing runs as one process has workers can, on one replica, hold every worker.
 */
export function perUserLimitReachesCapacity(limits: AdmissionLimits, workerConcurrency: number): boolean {
  return limits.perUser === null || limits.perUser >= workerConcurrency;
}
