import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { IdempotencyKeyPurge } from './idempotency-key-purge';

/** runs-service's periodic upkeep, on a queue of its own that only runs-service replicas serve. */
export const RUNS_MAINTENANCE_QUEUE = 'runs-maintenance';
export const PURGE_IDEMPOTENCY_KEYS_JOB = 'purge-idempotency-keys';
export const PURGE_EVERY_MS = 10 * 60_000;

/**
 * Every replica upserts the same BullMQ job scheduler at start, so there is one
 * schedule however many replicas run, and each of its jobs is purged by
 * whichever replica's worker takes it. A purge cut short (shutdown, a killed
 * replica) is simply continued by the next one.
 */
@Processor(RUNS_MAINTENANCE_QUEUE)
export class IdempotencyKeyPurgeProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(IdempotencyKeyPurgeProcessor.name);

  constructor(
    private readonly purge: IdempotencyKeyPurge,
    @InjectQueue(RUNS_MAINTENANCE_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      // An upsert with the same interval keeps the next run's time: replicas starting do not postpone it.
      await this.queue.upsertJobScheduler(
        PURGE_IDEMPOTENCY_KEYS_JOB,
        { every: PURGE_EVERY_MS },
        { name: PURGE_IDEMPOTENCY_KEYS_JOB, opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 50 } } },
      );
    } catch (error) {
      // The schedule lives in Redis: any replica that starts later registers it.
      this.logger.warn(`could not schedule the idempotency key purge: ${(error as Error).message}`);
    }
  }

  async process(job: Job): Promise<number> {
    if (job.name !== PURGE_IDEMPOTENCY_KEYS_JOB) return 0;
    // On shutdown the purge stops after its current batch rather than hold up the drain.
    const purged = await this.purge.purgeExpired(() => this.worker.closing !== undefined);
    if (purged > 0) this.logger.log(`purged ${purged} idempotency keys older than 24 hours`);
    return purged;
  }
}
