import { Processor, WorkerHost } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentDeletedEvent, EventNames, QueueNames } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { CancelSignals } from '../execution/cancel-signals';
import { deleteRunsOfDeletedAgent } from './agent-generations';

/**
 * agent.deleted: every run and event of that agent generation (and older ones) is deleted, never
 * those of a newer agent that took the id (agent-generations.ts); the workers of its unfinished runs
 * are told to stop. Idempotent.
 */
@Processor(QueueNames.RunsEvents, { ...WORKER_LOCK })
export class AgentDeletedConsumer extends WorkerHost {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cancels: CancelSignals,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job<AgentDeletedEvent>): Promise<void> {
    if (job.name !== EventNames.AgentDeleted) return;
    const stopped = await this.dataSource.transaction((manager) => deleteRunsOfDeletedAgent(manager, job.data));
    for (const runId of stopped) await this.cancels.signal(runId);
  }
}
