import { Injectable } from '@nestjs/common';
import { METRIC_PREFIX } from '@aas/platform';
import { Counter, Histogram, Registry } from 'prom-client';

/**
 * What became of a fire: its run started (or an earlier delivery's run was
 * found), it was skipped (the previous run still going under `overlap: skip`,
 * the schedule paused or gone, or missed under `misfire: skip` or beyond a
 * catch-up), runs-service refused it (agent gone, not deployed), the attempt
 * failed and its job will be retried, or it failed for good after its retries.
 */
export type FireOutcome =
  | 'started'
  | 'skipped_overlap'
  | 'skipped_paused'
  | 'skipped_deleted'
  | 'skipped_misfire'
  | 'refused'
  | 'retried'
  | 'failed';

const OUTCOMES: readonly FireOutcome[] = [
  'started',
  'skipped_overlap',
  'skipped_paused',
  'skipped_deleted',
  'skipped_misfire',
  'refused',
  'retried',
  'failed',
];

/** Fires this process handled, one outcome per attempt, how late the started ones were accepted, and schedules it could not evaluate. */
@Injectable()
export class FireMetrics {
  private readonly fires: Counter<'outcome'>;
  private readonly lag: Histogram;
  private readonly evaluationErrors: Counter;

  constructor(registry: Registry) {
    this.fires = new Counter({
      name: `${METRIC_PREFIX}schedule_fires_total`,
      help: 'Schedule fires this process handled, by outcome (a retried fire is counted once per attempt)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    // Every outcome is shown from the start, so rates and ratios need no first occurrence.
    for (const outcome of OUTCOMES) this.fires.inc({ outcome }, 0);
    this.lag = new Histogram({
      name: `${METRIC_PREFIX}schedule_fire_lag_seconds`,
      help: "Time from a fire's scheduled time to runs-service's answer that its run is stored, for fires that started a run",
      // Fine around the 250 ms p99 target; the top buckets catch host overload and fires late after an outage.
      buckets: [0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.evaluationErrors = new Counter({
      name: `${METRIC_PREFIX}schedule_evaluation_errors_total`,
      help: 'Due schedules whose expression a tick could not evaluate; each is finished with last_error set, the rest of its batch proceeds',
      registers: [registry],
    });
  }

  evaluationFailed(schedules = 1): void {
    if (schedules > 0) this.evaluationErrors.inc(schedules);
  }

  /** Fires whose runs runs-service accepted (committed) at `acceptedAt` (epoch ms). */
  started(fireTimes: string[], acceptedAt: number): void {
    for (const fireTime of fireTimes) this.lag.observe(Math.max(0, acceptedAt - Date.parse(fireTime)) / 1000);
    this.count('started', fireTimes.length);
  }

  count(outcome: FireOutcome, fires = 1): void {
    if (fires > 0) this.fires.inc({ outcome }, fires);
  }
}
