import { Injectable } from '@nestjs/common';
import { METRIC_PREFIX } from '@aas/platform';
import { Counter, Histogram, Registry } from 'prom-client';
import type { DeferReason } from '../fairness/deferral';

const DEFER_REASONS: readonly DeferReason[] = ['circuit_open', 'probe_in_flight', 'endpoint_busy', 'user_busy'];

/**
 * Outcomes of delivery attempts made by this process, how long the receiver took to answer, and what
 * the endpoint gate held back: deferrals, circuits opened and closed, deliveries given up unattempted.
 */
@Injectable()
export class DeliveryMetrics {
  private readonly attempts: Counter<'outcome'>;
  private readonly duration: Histogram<'outcome'>;
  private readonly deferrals: Counter<'reason'>;
  private readonly opened: Counter<'cause'>;
  private readonly closed: Counter;
  private readonly expired: Counter;

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
    this.deferrals = new Counter({
      name: `${METRIC_PREFIX}webhook_delivery_deferrals_total`,
      help: 'Deliveries put back to wait without an attempt, by reason: circuit_open, probe_in_flight, endpoint_busy, user_busy',
      labelNames: ['reason'],
      registers: [registry],
    });
    for (const reason of DEFER_REASONS) this.deferrals.inc({ reason }, 0);
    this.opened = new Counter({
      name: `${METRIC_PREFIX}webhook_circuits_opened_total`,
      help: 'Webhook circuits this process opened, by cause: failures (in a row, while closed) or probe_failed (opened again)',
      labelNames: ['cause'],
      registers: [registry],
    });
    for (const cause of ['failures', 'probe_failed']) this.opened.inc({ cause }, 0);
    this.closed = new Counter({
      name: `${METRIC_PREFIX}webhook_circuits_closed_total`,
      help: 'Webhook circuits this process closed (an attempt got an answer while the circuit was open or half-open)',
      registers: [registry],
    });
    this.expired = new Counter({
      name: `${METRIC_PREFIX}webhook_deliveries_given_up_total`,
      help: 'Deliveries failed without a further attempt: their circuit kept them waiting past the retry span',
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

  deferred(reason: DeferReason): void {
    this.deferrals.inc({ reason });
  }

  circuitOpened(afterProbe: boolean): void {
    this.opened.inc({ cause: afterProbe ? 'probe_failed' : 'failures' });
  }

  circuitClosed(): void {
    this.closed.inc();
  }

  givenUp(): void {
    this.expired.inc();
  }
}
