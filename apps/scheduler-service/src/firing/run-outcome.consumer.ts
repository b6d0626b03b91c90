import { Processor, WorkerHost } from '@nestjs/bullmq';
import { EventNames, QueueNames, parseJob } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { ScheduleStore } from '../schedules/schedule.store';
import { TriggerStore } from '../triggers/trigger.store';
import { RunEnds } from './run-ends';

/**
 * Run lifecycle events: an end whose effects runs-service had applied by request before publishing it
 * (`effects_applied`) is left alone; any other is applied here (RunEnds). agent.deleted removes the
 * agent's schedule and triggers.
 */
@Processor(QueueNames.SchedulerEvents, { concurrency: 16, ...WORKER_LOCK })
export class RunOutcomeConsumer extends WorkerHost {
  constructor(
    private readonly store: ScheduleStore,
    private readonly triggers: TriggerStore,
    private readonly ends: RunEnds,
  ) {
    super();
  }

  @InJobRequestContext()
  async process(job: Job): Promise<void> {
    const parsed = parseJob(QueueNames.SchedulerEvents, job);
    if (parsed.name === EventNames.AgentDeleted) {
      const deleted = parsed.data;
      await this.store.deleteOfAgent(deleted.agent_id, deleted.user_id, deleted.generation);
      await this.triggers.deleteOfAgent(deleted.user_id, deleted.agent_id, deleted.generation);
      return;
    }
    if (parsed.data.effects_applied === true) return;
    await this.ends.apply(parsed.data);
  }
}
