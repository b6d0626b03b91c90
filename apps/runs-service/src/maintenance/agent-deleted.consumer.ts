import { Processor, WorkerHost } from '@nestjs/bullmq';
import { QueueNames, parseJob } from '@aas/contracts';
import { InJobRequestContext, Transactions, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { MaintenanceStore } from './maintenance.store';

/**
 * agent.deleted: every run and event of that agent generation (and older ones) is deleted, never
 * those of a newer agent that took the id (database/agent-generations.ts); once that commits, the
 * workers of its unfinished runs stop and its user's room goes to the next waiting runs. Idempotent.
 */
@Processor(QueueNames.RunsEvents, { ...WORKER_LOCK })
export class AgentDeletedConsumer extends WorkerHost {
  constructor(
    private readonly store: MaintenanceStore,
    private readonly transactions: Transactions,
    private readonly lifecycle: RunLifecycle,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    const { data } = parseJob(QueueNames.RunsEvents, job);
    await this.transactions.run(async (tx) => {
      const stopped = await this.store.deleteRunsOfDeletedAgent(tx, data);
      this.lifecycle.removedIn(tx, stopped, [data.user_id]);
    });
  }
}
