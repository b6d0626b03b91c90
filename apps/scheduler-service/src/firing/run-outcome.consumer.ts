import { Processor, WorkerHost } from '@nestjs/bullmq';
import { InjectDataSource } from '@nestjs/typeorm';
import { AgentDeletedEvent, EventNames, QueueNames, RunLifecycleEvent } from '@aas/contracts';
import { Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { ScheduleEntity } from '../schedules/schedule.entity';
import { ScheduleFailures } from './schedule-failures';

/**
 * Outcomes of scheduled runs drive the failure count: error or outcome `fail`
 * is a failure, success or partial resets it, a user's stop is neither.
 * agent.deleted removes the agent's schedule.
 */
@Processor(QueueNames.SchedulerEvents, { concurrency: 16 })
export class RunOutcomeConsumer extends WorkerHost {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly failures: ScheduleFailures,
  ) {
    super();
  }

  async process(job: Job<RunLifecycleEvent | AgentDeletedEvent>): Promise<void> {
    if (job.name === EventNames.AgentDeleted) {
      await this.dataSource.manager.delete(ScheduleEntity, { agentId: job.data.agent_id });
      return;
    }
    const event = job.data as RunLifecycleEvent;
    if (event.run_kind !== 'schedule' || !event.schedule_agent_id) return;
    if (event.event === EventNames.RunFailed || (event.event === EventNames.RunCompleted && event.outcome === 'fail')) {
      await this.failures.recordFailure(event.schedule_agent_id);
    } else if (event.event === EventNames.RunCompleted) {
      await this.failures.recordSuccess(event.schedule_agent_id);
    }
  }
}
