import { Injectable } from '@nestjs/common';
import { METRIC_PREFIX } from '@aas/platform';
import { Counter, Gauge, Registry } from 'prom-client';
import { RunMetricsStore } from './run-metrics.store';

/**
 * Runs by status: the unfinished ones counted in PostgreSQL at scrape time (a
 * partial index keeps that cheap; the figure is the same on every replica), those
 * waiting for admission, and the runs this process finished, by final status.
 */
@Injectable()
export class RunMetrics {
  private readonly finishedRuns: Counter<'status'>;

  constructor(store: RunMetricsStore, registry: Registry) {
    this.finishedRuns = new Counter({
      name: `${METRIC_PREFIX}runs_finished_total`,
      help: 'Runs this process brought to a final state, by that status',
      labelNames: ['status'],
      registers: [registry],
    });
    new Gauge({
      name: `${METRIC_PREFIX}runs_unfinished`,
      help: 'Runs not finished yet, by status (the same on every replica)',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const row of await store.unfinishedByStatus()) this.set({ status: row.status }, row.count);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}runs_waiting_admission`,
      help: 'Runs accepted and waiting for room under their user and agent limits of executing runs (the same on every replica)',
      registers: [registry],
      async collect() {
        this.set(await store.waitingAdmission());
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}run_ends_unpublished`,
      help: "Runs' ends kept aside while their effects on other services are applied, not yet visible (the same on every replica)",
      registers: [registry],
      async collect() {
        this.set(await store.endsUnpublished());
      },
    });
  }

  finished(status: string): void {
    this.finishedRuns.inc({ status });
  }
}
