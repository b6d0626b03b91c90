import { Injectable } from '@nestjs/common';
import { METRIC_PREFIX } from '@aas/platform';
import { Counter, Histogram, Registry } from 'prom-client';

/** Outcomes of delivery attempts made by this process, and how long the receiver took to answer. */
@Injectable()
export class DeliveryMetrics {
  private readonly attempts: Counter<'outcome'>;
  private readonly duration: Histogram<'outcome'>;

  constructor(registry: Registry) {
    this.attempts = new Counter({
      name: `${METRIC_PREFIX}webhook_delivery_attempts_total`,
      help: 'Delivery attempts, by what became of the delivery: succeeded, retrying (pending), failed, cancelled',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: `${METRIC_PREFIX}webhook_delivery_duration_seconds`,
      help: 'Time from sending a delivery to its answer (or error), by outcome',
      labelNames: ['outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
      registers: [registry],
    });
  }

  attempted(outcome: string, durationMs: number): void {
    const label = outcome === 'pending' ? 'retrying' : outcome;
    this.attempts.inc({ outcome: label });
    this.duration.observe({ outcome: label }, durationMs / 1000);
  }

  cancelled(): void {
    this.attempts.inc({ outcome: 'cancelled' });
  }
}
