/** The figures of the runs gauges (postgres-run-metrics.store.ts), read at scrape time. */
export abstract class RunMetricsStore {
  /** Unfinished runs by status. */
  abstract unfinishedByStatus(): Promise<Array<{ status: string; count: number }>>;

  /** Runs accepted and not admitted yet (nor finished). */
  abstract waitingAdmission(): Promise<number>;

  /** Runs' ends kept aside, waiting for their effects before they are published (run-ends.ts). */
  abstract endsUnpublished(): Promise<number>;
}
