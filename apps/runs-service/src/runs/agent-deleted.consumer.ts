import { Processor, WorkerHost } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentDeletedEvent, EventNames, QueueNames } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { CancelSignals } from '../execution/cancel-signals';
import { RunListTotals } from './run-list-totals';
import { RunEntity } from './run.entity';

/** agent.deleted: its running runs are stopped, then every run and event of it is deleted. Idempotent. */
@Processor(QueueNames.RunsEvents, { ...WORKER_LOCK })
export class AgentDeletedConsumer extends WorkerHost {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly cancels: CancelSignals,
    private readonly runListTotals: RunListTotals,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job<AgentDeletedEvent>): Promise<void> {
    if (job.name !== EventNames.AgentDeleted) return;
    const { agent_id: agentId } = job.data;
    const running = await this.dataSource.manager.find(RunEntity, { select: { id: true }, where: { agentId, isFinished: false } });
    await this.dataSource.transaction(async (manager) => {
      await manager.delete(RunEntity, { agentId });
      await manager.query('DELETE FROM agent_run_counters WHERE agent_id = $1', [agentId]);
      await this.runListTotals.forgetAgent(agentId, manager);
    });
    for (const run of running) await this.cancels.signal(run.id);
  }
}
