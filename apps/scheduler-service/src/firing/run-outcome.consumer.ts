import { Processor, WorkerHost } from '@nestjs/bullmq';
import { EventNames, QueueNames, RunLifecycleEvent, parseJob } from '@aas/contracts';
import { InJobRequestContext, WORKER_LOCK } from '@aas/platform';
import { Job } from 'bullmq';
import { ScheduleStore } from '../schedules/schedule.store';
import { EventTriggers } from '../triggers/event-triggers';
import { TriggerStore } from '../triggers/trigger.store';
import { RunEndVerdict, ScheduleFailures } from './schedule-failures';

/**
 * Ends of scheduled runs drive the failure count (error or outcome `fail` is a
 * failure, success or partial resets it, a user's stop is neither) and tell the
 * schedule its run is no longer unfinished. agent.deleted removes the agent's schedule.
 */
@Processor(QueueNames.SchedulerEvents, { concurrency: 16, ...WORKER_LOCK })
export class RunOutcomeConsumer extends WorkerHost {
  constructor(
    private readonly store: ScheduleStore,
    private readonly triggers: TriggerStore,
    private readonly eventTriggers: EventTriggers,
    private readonly failures: ScheduleFailures,
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
    const event = parsed.data;
    await this.eventTriggers.onRunEvent(event);
    if (event.run_kind !== 'schedule' || !event.schedule_agent_id) return;
    const verdict = verdictOf(event);
    // A run of a deleted agent never counts for the schedule of a new agent with its id.
    if (verdict) await this.failures.recordRunEnd(event.schedule_agent_id, event.run_id, verdict, event.agent_generation ?? null);
  }
}

/** undefined: the event does not end the run. */
function verdictOf(event: RunLifecycleEvent): RunEndVerdict | undefined {
  switch (event.event) {
    case EventNames.RunFailed:
      return 'failure';
    case EventNames.RunCompleted:
      return event.outcome === 'fail' ? 'failure' : 'success';
    case EventNames.RunStopped:
      return 'neither';
    default:
      return undefined;
  }
}
