import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceEnv } from '../config/common.env';
import { Worker } from 'bullmq';
import { AppQueueWorkers } from './app-queue-workers';

/**
 * On shutdown, every BullMQ worker of the app stops taking jobs and finishes
 * the ones it holds, before any connection closes (hooks that close connections
 * run later, on application shutdown). Jobs still queued stay in Redis for the
 * other replicas. Past SHUTDOWN_DRAIN_MS, workers that are deadline-aware are
 * told to give up what they hold, so the process exits within its grace period.
 */
@Injectable()
export class QueueWorkersDrain implements BeforeApplicationShutdown {
  private readonly logger = new Logger(QueueWorkersDrain.name);
  private draining?: Promise<void>;

  constructor(
    private readonly workers: AppQueueWorkers,
    private readonly config: ConfigService<ServiceEnv, true>,
  ) {}

  /** A worker built by hand rather than with @Processor: drained like the others (and watched by metrics). */
  register(worker: Worker, onDrainDeadline?: () => void): void {
    this.workers.register(worker, onDrainDeadline);
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.drain();
  }

  /** Idempotent: whoever needs the workers drained first (the outbox relay, say) starts it. */
  drain(): Promise<void> {
    this.draining ??= this.closeAll();
    return this.draining;
  }

  private async closeAll(): Promise<void> {
    const workers = this.workers.all();
    if (workers.length === 0) return;
    const closed = Promise.allSettled(workers.map(({ worker }) => worker.close())).then(() => true);
    const deadline = this.config.get('SHUTDOWN_DRAIN_MS', { infer: true });
    const inTime = await Promise.race([closed, sleep(deadline, false, { ref: false })]);
    if (inTime) return;
    this.logger.warn(`jobs still running after SHUTDOWN_DRAIN_MS (${deadline} ms); cutting them short`);
    for (const { onDrainDeadline } of workers) onDrainDeadline?.();
    await closed;
  }
}
