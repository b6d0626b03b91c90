import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { JobNames, QueueNames, parseJob } from '@aas/contracts';
import { schedulePeriodicJob } from '@aas/platform';
import { Job, Queue } from 'bullmq';
import { RunsEnv } from '../config/runs.env';
import { RunDeletions } from '../retention/run-deletions';
import { RunRetention } from '../retention/run-retention';
import { RunListStore } from '../run-list/run-list.store';
import { MaintenanceStore } from './maintenance.store';

export const PURGE_EVERY_MS = 10 * 60_000;

/**
 * runs-service's periodic upkeep, on a queue of its own that only runs-service replicas serve.
 * Each job is scheduled once however many replicas run (schedulePeriodicJob). A purge cut short
 * (shutdown, a killed replica) is simply continued by the next one.
 */
@Processor(QueueNames.RunsMaintenance)
export class RunsMaintenanceProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(RunsMaintenanceProcessor.name);

  constructor(
    private readonly store: MaintenanceStore,
    private readonly runList: RunListStore,
    private readonly retention: RunRetention,
    private readonly deletions: RunDeletions,
    private readonly config: ConfigService<RunsEnv, true>,
    @InjectQueue(QueueNames.RunsMaintenance) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await schedulePeriodicJob(this.queue, JobNames.PurgeIdempotencyKeys, PURGE_EVERY_MS, this.logger);
    await schedulePeriodicJob(this.queue, JobNames.PurgeRunListTotals, PURGE_EVERY_MS, this.logger);
    await schedulePeriodicJob(this.queue, JobNames.PurgeDeletedAgentGenerations, PURGE_EVERY_MS, this.logger);
    await schedulePeriodicJob(this.queue, JobNames.PurgeIdleRunChains, PURGE_EVERY_MS, this.logger);
    const retentionEvery = this.config.get('RUN_PURGE_INTERVAL_MS', { infer: true });
    await schedulePeriodicJob(this.queue, JobNames.PurgeExpiredRuns, retentionEvery, this.logger);
  }

  async process(job: Job): Promise<number> {
    // On shutdown a purge stops after its current batch rather than hold up the drain.
    const stop = () => this.worker.closing !== undefined;
    switch (parseJob(QueueNames.RunsMaintenance, job).name) {
      case JobNames.PurgeIdempotencyKeys: {
        const purged = await this.store.purgeExpiredKeys(stop);
        if (purged > 0) this.logger.log(`purged ${purged} idempotency keys older than 24 hours`);
        return purged;
      }
      case JobNames.PurgeRunListTotals:
        return this.runList.purgeStaleTotals(stop);
      case JobNames.PurgeDeletedAgentGenerations:
        return this.store.purgeDeletedGenerations();
      case JobNames.PurgeIdleRunChains:
        return this.store.purgeIdleChains(stop);
      case JobNames.PurgeExpiredRuns: {
        // Deletions asked for are done by their own job at once; this catches up one whose job was lost.
        const requested = await this.deletions.purgeRequested(stop);
        return requested.runs + (await this.retention.purgeDue(stop)).runs;
      }
      case JobNames.PurgeRequestedRuns:
        return (await this.deletions.purgeRequested(stop)).runs;
    }
  }
}
