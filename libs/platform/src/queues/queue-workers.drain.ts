import { WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DiscoveryService } from '@nestjs/core';
import { Worker } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceEnv } from '../config/common.env';

/** A queue processor that must cut its jobs short when the drain deadline passes (a long run, say). */
export interface DrainDeadlineAware {
  onDrainDeadline(): void;
}

interface DrainableWorker {
  worker: Worker;
  onDrainDeadline?: () => void;
}

function isDeadlineAware(value: object): value is DrainDeadlineAware {
  return typeof (value as Partial<DrainDeadlineAware>).onDrainDeadline === 'function';
}

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
  private readonly registered: DrainableWorker[] = [];
  private draining?: Promise<void>;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly config: ConfigService<ServiceEnv, true>,
  ) {}

  /** For workers built by hand rather than with @Processor. */
  register(worker: Worker, onDrainDeadline?: () => void): void {
    this.registered.push({ worker, onDrainDeadline });
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
    const workers = [...this.discoveredWorkers(), ...this.registered];
    if (workers.length === 0) return;
    const closed = Promise.allSettled(workers.map(({ worker }) => worker.close())).then(() => true);
    const deadline = this.config.get('SHUTDOWN_DRAIN_MS', { infer: true });
    const inTime = await Promise.race([closed, sleep(deadline, false, { ref: false })]);
    if (inTime) return;
    this.logger.warn(`jobs still running after SHUTDOWN_DRAIN_MS (${deadline} ms); cutting them short`);
    for (const { onDrainDeadline } of workers) onDrainDeadline?.();
    await closed;
  }

  private discoveredWorkers(): DrainableWorker[] {
    return this.discovery
      .getProviders()
      .map((wrapper) => wrapper.instance as unknown)
      .filter((instance): instance is WorkerHost => instance instanceof WorkerHost && hasWorker(instance))
      .map((host) => ({
        worker: host.worker,
        onDrainDeadline: isDeadlineAware(host) ? () => host.onDrainDeadline() : undefined,
      }));
  }
}

function hasWorker(host: WorkerHost): boolean {
  try {
    return host.worker !== undefined;
  } catch {
    return false; // its worker was never started (the app failed during start-up)
  }
}
