import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { schedulePeriodicJob } from '@aas/platform';
import { InjectDataSource } from '@nestjs/typeorm';
import { Job, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { purgeDeletedGenerations } from './agent-generations';
import { IdempotencyKeyPurge } from './idempotency-key-purge';
import { RunListTotals } from './run-list-totals';

/** runs-service's periodic upkeep, on a queue of its own that only runs-service replicas serve. */
export const RUNS_MAINTENANCE_QUEUE = 'runs-maintenance';
export const PURGE_IDEMPOTENCY_KEYS_JOB = 'purge-idempotency-keys';
export const PURGE_RUN_LIST_TOTALS_JOB = 'purge-run-list-totals';
export const PURGE_DELETED_AGENT_GENERATIONS_JOB = 'purge-deleted-agent-generations';
export const PURGE_EVERY_MS = 10 * 60_000;

/**
 * Each job is scheduled once however many replicas run (schedulePeriodicJob). A purge cut short
 * (shutdown, a killed replica) is simply continued by the next one.
 */
@Processor(RUNS_MAINTENANCE_QUEUE)
export class RunsMaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(RunsMaintenanceProcessor.name);

  constructor(
    private readonly idempotencyKeys: IdempotencyKeyPurge,
    private readonly runListTotals: RunListTotals,
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectQueue(RUNS_MAINTENANCE_QUEUE) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await schedulePeriodicJob(this.queue, PURGE_IDEMPOTENCY_KEYS_JOB, PURGE_EVERY_MS, this.logger);
    await schedulePeriodicJob(this.queue, PURGE_RUN_LIST_TOTALS_JOB, PURGE_EVERY_MS, this.logger);
    await schedulePeriodicJob(this.queue, PURGE_DELETED_AGENT_GENERATIONS_JOB, PURGE_EVERY_MS, this.logger);
  }

  async process(job: Job): Promise<number> {
    // On shutdown a purge stops after its current batch rather than hold up the drain.
    const stop = () => this.worker.closing !== undefined;
    if (job.name === PURGE_IDEMPOTENCY_KEYS_JOB) {
      const purged = await this.idempotencyKeys.purgeExpired(stop);
      if (purged > 0) this.logger.log(`purged ${purged} idempotency keys older than 24 hours`);
      return purged;
    }
    if (job.name === PURGE_RUN_LIST_TOTALS_JOB) return this.runListTotals.purgeStale(stop);
    if (job.name === PURGE_DELETED_AGENT_GENERATIONS_JOB) return purgeDeletedGenerations(this.dataSource.manager);
    return 0;
  }
}
