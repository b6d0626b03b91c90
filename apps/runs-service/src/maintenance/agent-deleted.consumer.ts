import { Processor, WorkerHost } from '@nestjs/bullmq';
import { QueueNames, parseJob } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { RunAdmission } from '../admission/run-admission.service';
import { CancelSignals } from '../lifecycle/cancel-signals';
import { MaintenanceStore } from './maintenance.store';

/**
 * agent.deleted: every run and event of that agent generation (and older ones) is deleted, never
 * those of a newer agent that took the id (database/agent-generations.ts); the workers of its unfinished runs
 * are told to stop. Idempotent.
 */
@Processor(QueueNames.RunsEvents, { ...WORKER_LOCK })
export class AgentDeletedConsumer extends WorkerHost {
  constructor(
    private readonly store: MaintenanceStore,
    private readonly cancels: CancelSignals,
    private readonly admission: RunAdmission,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    const { data } = parseJob(QueueNames.RunsEvents, job);
    const stopped = await this.store.deleteRunsOfDeletedAgent(data);
    for (const runId of stopped) await this.cancels.signal(runId);
    // The deleted agent's executing runs no longer count towards its user's limit.
    if (stopped.length > 0) this.admission.kick(data.user_id);
  }
}
