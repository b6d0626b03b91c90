import { ConfigService } from '@nestjs/config';
import { AgentDeletedEvent, EventNames, RunLifecycleEvent } from '@aas/contracts';
import { Job } from 'bullmq';
import { SchedulerEnv } from '../config/scheduler.env';
import { FakeScheduleStore, scheduleRow } from '../schedules/schedule.store.fake';
import { EventTriggers } from '../triggers/event-triggers';
import { FakeTriggerStore, triggerRow } from '../triggers/trigger.store.fake';
import { RunEnds } from './run-ends';
import { RunOutcomeConsumer } from './run-outcome.consumer';
import { ScheduleFailures } from './schedule-failures';

const AGENT = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const RUN = '00000000-0000-4000-9000-000000000001';

const runEnd = (changes: Partial<RunLifecycleEvent>): RunLifecycleEvent => ({
  event: EventNames.RunCompleted,
  run_id: RUN,
  agent_id: AGENT,
  user_id: '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f',
  status: 'completed',
  outcome: 'success',
  run_kind: 'schedule',
  schedule_agent_id: AGENT,
  timestamp: '2026-03-02T10:00:00.000Z',
  agent_generation: 2,
  ...changes,
});

describe(RunOutcomeConsumer.name, () => {
  function setup() {
    const schedules = new FakeScheduleStore([scheduleRow({ agentId: AGENT, agentGeneration: '2' }), scheduleRow({ agentId: OTHER })]);
    const triggers = new FakeTriggerStore([
      triggerRow({ id: '00000000-0000-4000-a000-000000000001', agentId: AGENT, agentGeneration: '2' }),
      triggerRow({ id: '00000000-0000-4000-a000-000000000002', agentId: OTHER, kind: 'event', sourceAgentId: AGENT, sourceAgentGeneration: '2', events: [EventNames.RunFailed] }),
      triggerRow({ id: '00000000-0000-4000-a000-000000000003', agentId: OTHER }),
    ]);
    const seen: RunLifecycleEvent[] = [];
    const eventTriggers = { onRunEvent: async (event: RunLifecycleEvent) => void seen.push(event) } as unknown as EventTriggers;
    const config = { get: () => 5 } as unknown as ConfigService<SchedulerEnv, true>; // SCHEDULE_AUTO_PAUSE_AFTER
    const sut = new RunOutcomeConsumer(schedules, triggers, new RunEnds(eventTriggers, new ScheduleFailures(schedules, config)));
    const process = (name: string, data: RunLifecycleEvent | AgentDeletedEvent) => sut.process({ name, data } as Job<RunLifecycleEvent | AgentDeletedEvent>);
    return { schedules, triggers, seen, process };
  }

  it('counts how a scheduled run ended: error or outcome fail is a failure, success or partial resets, a stop is neither', async () => {
    const { schedules, process } = setup();
    const ends: Array<[Partial<RunLifecycleEvent>, string]> = [
      [{ event: EventNames.RunFailed, status: 'failed', outcome: undefined }, 'failure'],
      [{ outcome: 'fail' }, 'failure'],
      [{ outcome: 'success' }, 'success'],
      [{ outcome: 'partial' }, 'success'],
      [{ event: EventNames.RunStopped, status: 'stopped', outcome: undefined }, 'neither'],
    ];
    for (const [changes] of ends) await process(changes.event ?? EventNames.RunCompleted, runEnd(changes));
    expect(schedules.runEnds).toEqual(ends.map(([, verdict]) => ({ agentId: AGENT, runId: RUN, verdict, autoPauseAfter: 5, agentGeneration: 2 })));
  });

  it('leaves the schedule alone for a pause and for runs it did not start, and hands every run event to the event triggers', async () => {
    const { schedules, seen, process } = setup();
    await process(EventNames.RunPaused, runEnd({ event: EventNames.RunPaused, status: 'paused' }));
    await process(EventNames.RunFailed, runEnd({ event: EventNames.RunFailed, run_kind: 'api', schedule_agent_id: null }));
    await process(EventNames.RunFailed, runEnd({ event: EventNames.RunFailed, run_kind: 'schedule', schedule_agent_id: null }));
    expect(schedules.runEnds).toEqual([]);
    expect(seen.map((e) => e.event)).toEqual([EventNames.RunPaused, EventNames.RunFailed, EventNames.RunFailed]);
  });

  it('leaves alone an end whose effects runs-service applied by request before publishing it', async () => {
    const { schedules, seen, process } = setup();
    await process(EventNames.RunFailed, runEnd({ event: EventNames.RunFailed, effects_applied: true }));
    expect([schedules.runEnds, seen]).toEqual([[], []]);
    await process(EventNames.RunFailed, runEnd({ event: EventNames.RunFailed, effects_applied: false }));
    expect([schedules.runEnds.length, seen.length]).toEqual([1, 1]);
  });

  it("takes a run of a runs-service without generations as the schedule's", async () => {
    const { schedules, process } = setup();
    await process(EventNames.RunFailed, runEnd({ event: EventNames.RunFailed, agent_generation: undefined }));
    expect(schedules.runEnds).toEqual([expect.objectContaining({ verdict: 'failure', agentGeneration: null })]);
  });

  it("agent.deleted removes that generation's schedule, its triggers and the event triggers that followed it, and nothing else", async () => {
    const { schedules, triggers, process } = setup();
    await process(EventNames.AgentDeleted, { agent_id: AGENT, user_id: runEnd({}).user_id, deleted_at: '2026-03-02T10:00:00.000Z', generation: 1 });
    expect([schedules.rows.has(AGENT), triggers.rows.size]).toEqual([true, 3]); // an older generation's deletion
    await process(EventNames.AgentDeleted, { agent_id: AGENT, user_id: runEnd({}).user_id, deleted_at: '2026-03-02T10:00:00.000Z', generation: 2 });
    expect([...schedules.rows.keys()]).toEqual([OTHER]);
    expect([...triggers.rows.keys()]).toEqual(['00000000-0000-4000-a000-000000000003']);
  });
});
