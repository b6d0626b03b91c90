import { getQueueToken } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectDataSource } from '@nestjs/typeorm';
import { JobsOptions, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { afterCommit } from '../database/after-commit';
import { Transaction } from '../database/transactions';
import { QueueWorkersDrain } from '../queues/queue-workers.drain';
import { RequestTraced } from '../request-context/job-request-context';
import { OutboxEventEntity } from './outbox-event.entity';

const BATCH = 100;
const POLL_MS = 1000;

export const OUTBOX_ROUTES = Symbol('OUTBOX_ROUTES');

/** Which queues each event name goes to. */
export type OutboxRoutes = Record<string, readonly string[]>;

export const OUTBOX_JOB_PRIORITIES = Symbol('OUTBOX_JOB_PRIORITIES');

/**
 * For some event names, the BullMQ priority of their jobs, read from the event's payload (undefined: none).
 * Only the priority: attempts, retention and the job id stay the relay's, which its guarantees rest on.
 */
export type OutboxJobPriorities = Record<string, (payload: Record<string, unknown>) => number | undefined>;

const JOB_OPTIONS: JobsOptions = {
  attempts: 10,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { age: 24 * 3600 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

/**
 * Moves committed outbox events onto their BullMQ queues. Rows are locked with
 * SKIP LOCKED, so replicas share the work; an event published twice (a crash
 * between enqueue and delete) keeps its job id and is de-duplicated by BullMQ.
 */
@Injectable()
export class OutboxRelay implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(OUTBOX_ROUTES) private readonly routes: OutboxRoutes,
    private readonly moduleRef: ModuleRef,
    @Optional() private readonly workers?: QueueWorkersDrain,
    @Optional() @Inject(OUTBOX_JOB_PRIORITIES) private readonly priorities?: OutboxJobPriorities,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => this.kick(), POLL_MS);
    this.timer.unref();
  }

  /** Publishes what the app's last jobs recorded, once they are done, then stops; the queues are still open. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.workers?.drain();
    clearInterval(this.timer);
    this.stopped = true;
    await this.running;
    await this.drain().catch((error: Error) => this.logger.warn(`outbox relay: ${error.message}; left for another replica`));
  }

  /** For the stores that write outbox rows in `tx`: publishes them as soon as it commits. */
  kickAfterCommit(tx: Transaction): void {
    afterCommit(tx, () => this.kick());
  }

  /** Publishes soon: after a commit that recorded events (kickAfterCommit), and by the poll as a safety net. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: Error) => this.logger.warn(`outbox relay: ${error.message}; retrying on the next poll`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async drain(): Promise<void> {
    while ((await this.publishBatch()) === BATCH);
  }

  private publishBatch(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const events = await manager
        .createQueryBuilder(OutboxEventEntity, 'e')
        .orderBy('e.created_at')
        .addOrderBy('e.seq')
        .limit(BATCH)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      if (events.length === 0) return 0;
      await this.publish(events);
      await manager.delete(OutboxEventEntity, events.map((e) => e.id));
      return events.length;
    });
  }

  /** One addBulk per queue (one round trip each, the batch's order kept), the queues at once. */
  private async publish(events: OutboxEventEntity[]): Promise<void> {
    const jobsByQueue = new Map<string, BulkJob[]>();
    for (const event of events) {
      const priority = this.priorities?.[event.event]?.(event.payload);
      const opts = { ...JOB_OPTIONS, ...(priority === undefined ? {} : { priority }), jobId: event.id };
      for (const queueName of this.routes[event.event] ?? []) {
        const jobs = jobsByQueue.get(queueName) ?? jobsByQueue.set(queueName, []).get(queueName)!;
        jobs.push({ name: event.event, data: jobData(event), opts });
      }
    }
    await Promise.all(
      [...jobsByQueue].map(([queueName, jobs]) => this.moduleRef.get<Queue>(getQueueToken(queueName), { strict: false }).addBulk(jobs)),
    );
  }
}

type BulkJob = Parameters<Queue['addBulk']>[0][number];

function jobData(event: OutboxEventEntity): Record<string, unknown> & RequestTraced {
  return event.requestId ? { ...event.payload, request_id: event.requestId } : event.payload;
}
