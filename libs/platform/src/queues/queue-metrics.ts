import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import { METRIC_PREFIX } from '../metrics/metrics.module';
import { AppQueueWorkers, AppWorker } from './app-queue-workers';

const COUNTED_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;

/**
 * Queue depths (read from Redis at scrape time) and job outcomes of this app's
 * workers. Also gives every worker and queue an `error` listener: BullMQ
 * reports lost Redis connections there and reconnects on its own; unheard,
 * they would crash the process or print raw stacks.
 */
@Injectable()
export class QueueMetrics implements OnApplicationBootstrap {
  private readonly logger = new Logger(QueueMetrics.name);
  private readonly outcomes: Counter<'queue' | 'outcome'>;

  constructor(
    private readonly workers: AppQueueWorkers,
    registry: Registry,
  ) {
    this.outcomes = new Counter({
      name: `${METRIC_PREFIX}queue_jobs_processed_total`,
      help: 'Jobs this process finished, by queue and outcome (failed includes attempts that will be retried)',
      labelNames: ['queue', 'outcome'],
      registers: [registry],
    });
    const queues = () => this.workers.queues();
    new Gauge({
      name: `${METRIC_PREFIX}queue_jobs`,
      help: 'Jobs in each queue this app uses, by state (the same for every replica)',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        for (const queue of queues()) {
          const counts = await queue.getJobCounts(...COUNTED_STATES);
          for (const state of COUNTED_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
        }
      },
    });
  }

  onApplicationBootstrap(): void {
    this.workers.onWorker((worker) => this.watch(worker));
    // Producers report a lost Redis connection the same way; unheard, each one prints a raw stack.
    for (const queue of this.workers.queues()) {
      if (queue.listenerCount('error') === 0) queue.on('error', (error) => this.logger.warn(`queue ${queue.name}: ${error.message}`));
    }
  }

  private watch({ worker }: AppWorker): void {
    worker.on('completed', () => this.outcomes.inc({ queue: worker.name, outcome: 'completed' }));
    worker.on('failed', () => this.outcomes.inc({ queue: worker.name, outcome: 'failed' }));
    if (worker.listenerCount('error') === 0) {
      worker.on('error', (error) => this.logger.warn(`queue ${worker.name}: ${error.message}`));
    }
  }
}
