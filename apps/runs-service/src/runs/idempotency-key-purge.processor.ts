import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { schedulePeriodicJob } from '@aas/platform';
import { Job, Queue } from 'bullmq';
import { IdempotencyKeyPurge } from './idempotency-key-purge';

/** runs-service's periodic upkeep, on a queue of its own that only runs-service replicas serve. */
export const RUNS_MAINTENANCE_QUEUE = 'runs-maintenance';
export const PURGE_IDEMPOTENCY_KEYS_JOB = 'purge-idempotency-keys';
export const PURGE_EVERY_MS = 10 * 60_000;

/**
 * Scheduled once however many replicas run (schedulePeriodicJob). A purge cut short (shutdown, a killed
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
    await schedulePeriodicJob(this.queue, PURGE_IDEMPOTENCY_KEYS_JOB, PURGE_EVERY_MS, this.logger);
  }

  async process(job: Job): Promise<number> {
    if (job.name !== PURGE_IDEMPOTENCY_KEYS_JOB) return 0;
    // On shutdown the purge stops after its current batch rather than hold up the drain.
    const purged = await this.purge.purgeExpired(() => this.worker.closing !== undefined);
    if (purged > 0) this.logger.log(`purged ${purged} idempotency keys older than 24 hours`);
    return purged;
  }
}
