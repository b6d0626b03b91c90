import { WorkerHost } from '@nestjs/bullmq';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { Queue, Worker } from 'bullmq';

/** A queue processor that must cut its jobs short when the shutdown drain deadline passes (a long run, say). */
export interface DrainDeadlineAware {
  onDrainDeadline(): void;
}

export interface AppWorker {
  worker: Worker;
  onDrainDeadline?: () => void;
}

function isDeadlineAware(value: object): value is DrainDeadlineAware {
  return typeof (value as Partial<DrainDeadlineAware>).onDrainDeadline === 'function';
}

/**
 * The BullMQ workers and queues of this app: those made with @Processor and
 * @InjectQueue (found at bootstrap) and workers built by hand (registered).
 * Shutdown drains them; metrics watch them.
 */
@Injectable()
export class AppQueueWorkers implements OnApplicationBootstrap {
  private readonly workers: AppWorker[] = [];
  private readonly listeners: ((worker: AppWorker) => void)[] = [];
  private discovered = false;

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    this.discover();
  }

  /** For workers built by hand rather than with @Processor. */
  register(worker: Worker, onDrainDeadline?: () => void): void {
    this.add({ worker, onDrainDeadline });
  }

  all(): AppWorker[] {
    this.discover();
    return [...this.workers];
  }

  /** Calls `listener` for every worker, present and future. */
  onWorker(listener: (worker: AppWorker) => void): void {
    this.listeners.push(listener);
    for (const worker of this.all()) listener(worker);
  }

  queues(): Queue[] {
    return this.instances().filter((instance): instance is Queue => instance instanceof Queue);
  }

  private discover(): void {
    if (this.discovered) return;
    this.discovered = true;
    for (const host of this.instances().filter((i): i is WorkerHost => i instanceof WorkerHost && hasWorker(i))) {
      this.add({ worker: host.worker, onDrainDeadline: isDeadlineAware(host) ? () => host.onDrainDeadline() : undefined });
    }
  }

  private add(worker: AppWorker): void {
    this.workers.push(worker);
    for (const listener of this.listeners) listener(worker);
  }

  private instances(): unknown[] {
    return this.discovery.getProviders().map((wrapper) => wrapper.instance as unknown);
  }
}

function hasWorker(host: WorkerHost): boolean {
  try {
    return host.worker !== undefined;
  } catch {
    return false; // its worker was never started (the app failed during start-up)
  }
}
