import { Injectable } from '@nestjs/common';
import { EventNames, RunLifecycleEvent } from '@aas/contracts';
import { EventTriggers } from '../triggers/event-triggers';
import { RunEndVerdict, ScheduleFailures } from './schedule-failures';

/**
 * What a run's lifecycle event changes here: every end starts the event triggers that follow its agent
 * (each start keyed by the source run, so a second application starts nothing new), and a scheduled
 * run's end drives its schedule's failure count and tells the schedule its run is no longer unfinished.
 * Applied by request before the end becomes visible (RunEndsHandlers), or from the event for ends
 * published without that (RunOutcomeConsumer).
 */
@Injectable()
export class RunEnds {
  constructor(
    private readonly eventTriggers: EventTriggers,
    private readonly failures: ScheduleFailures,
  ) {}

  async apply(event: RunLifecycleEvent): Promise<void> {
    await this.eventTriggers.onRunEvent(event);
    if (event.run_kind !== 'schedule' || !event.schedule_agent_id) return;
    const verdict = verdictOf(event);
    // A run of a deleted agent never counts for the schedule of a new agent with its id.
    if (verdict) await this.failures.recordRunEnd(event.schedule_agent_id, event.run_id, verdict, event.agent_generation ?? null);
  }
}

/** How an end counts for its schedule: error or outcome fail is a failure, success or partial resets, a user's stop is neither. undefined: not an end. */
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
