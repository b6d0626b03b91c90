/** The figures of the runs gauges (postgres-run-metrics.store.ts), read at scrape time. */
export abstract class RunMetricsStore {
  /** Unfinished runs by status. */
  abstract unfinishedByStatus(): Promise<Array<{ status: string; count: number }>>;

  /** Runs accepted and not admitted yet (nor finished). */
  abstract waitingAdmission(): Promise<number>;
}
