import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { EventNames, RunLifecycleEvent, StartTriggeredRunsResponse, TriggeredRunStart } from '@aas/contracts';
import { Registry } from 'prom-client';
import { SchedulerEnv } from '../config/scheduler.env';
import { EventTriggers } from './event-triggers';
import { TriggerMetrics } from './trigger-metrics';
import { FakeTriggerStore, triggerRow } from './trigger.store.fake';
import { TriggeredRunStarter } from './triggered-run-starter';

const SOURCE = '00000000-0000-4000-8000-000000000001';
const FOLLOWER = '00000000-0000-4000-8000-000000000002';
const trigger = (n: number) => `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`;
const MAX_DEPTH = 3;

const ended = (changes: Partial<RunLifecycleEvent> = {}): RunLifecycleEvent => ({
  event: EventNames.RunCompleted,
  run_id: '00000000-0000-4000-9000-000000000001',
  agent_id: SOURCE,
  user_id: '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f',
  status: 'completed',
  outcome: 'success',
  run_kind: 'api',
  schedule_agent_id: null,
  timestamp: '2026-03-02T10:00:00.000Z',
  agent_generation: 4,
  ...changes,
});

describe(EventTriggers.name, () => {
  beforeAll(() => Logger.overrideLogger(false)); // the refusals it logs are expected here
  afterAll(() => Logger.overrideLogger(new Logger()));

  function setup(answer: (start: TriggeredRunStart) => StartTriggeredRunsResponse['outcomes'][number] = () => ({ run_id: 'r', created: true })) {
    const store = new FakeTriggerStore([
      triggerRow({ id: trigger(1), agentId: FOLLOWER, kind: 'event', sourceAgentId: SOURCE, sourceAgentGeneration: '4', events: [EventNames.RunCompleted, EventNames.RunFailed], verification: null }),
      triggerRow({ id: trigger(2), agentId: FOLLOWER, kind: 'event', sourceAgentId: SOURCE, sourceAgentGeneration: '4', events: [EventNames.RunCompleted], verification: null, messageTemplate: 'after {{source_run.summary}}' }),
    ]);
    const asked: TriggeredRunStart[][] = [];
    const runs = { start: async (starts: TriggeredRunStart[]) => (asked.push(starts), starts.map(answer)) } as unknown as TriggeredRunStarter;
    const registry = new Registry();
    const config = { get: () => MAX_DEPTH } as unknown as ConfigService<SchedulerEnv, true>; // TRIGGER_MAX_DEPTH
    const sut = new EventTriggers(store, runs, new TriggerMetrics(registry), config);
    const outcomes = async () => {
      const metric = await registry.getSingleMetric('aas_event_trigger_starts_total')!.get();
      return Object.fromEntries(metric.values.filter((v) => v.value > 0).map((v) => [v.labels.outcome, v.value]));
    };
    return { sut, store, asked, outcomes };
  }

  describe('the depth limit', () => {
    it('starts the followers of a run one hop deeper than the run, up to TRIGGER_MAX_DEPTH', async () => {
      const { sut, asked, outcomes } = setup();
      await sut.onRunEvent(ended({ trigger_depth: MAX_DEPTH - 1 }));
      expect(asked).toHaveLength(1);
      expect(asked[0].map((s) => s.depth)).toEqual([MAX_DEPTH, MAX_DEPTH]);
      expect(await outcomes()).toEqual({ started: 2 });
    });

    it('takes a run of a runs-service without trigger depths as the start of a chain', async () => {
      const { sut, asked } = setup();
      await sut.onRunEvent(ended({ trigger_depth: undefined }));
      expect(asked[0].map((s) => s.depth)).toEqual([1, 1]);
    });

    it('refuses the starts past TRIGGER_MAX_DEPTH, starting nothing and recording why on each trigger', async () => {
      const { sut, store, asked, outcomes } = setup();
      await sut.onRunEvent(ended({ trigger_depth: MAX_DEPTH }));
      expect(asked).toEqual([]);
      for (const id of [trigger(1), trigger(2)]) {
        expect(store.rows.get(id)).toMatchObject({
          lastError: expect.stringContaining(`would be ${MAX_DEPTH + 1} deep, more than TRIGGER_MAX_DEPTH (${MAX_DEPTH})`),
          lastTriggeredAt: null,
        });
      }
      expect(await outcomes()).toEqual({ refused_depth: 2 });
    });
  });

  it('keys each start by the source run and its event, so a redelivered event starts nothing new', async () => {
    const { sut, asked } = setup();
    await sut.onRunEvent(ended({ summary: 'the report is done' }));
    const run = ended().run_id;
    expect(asked[0].map((s) => [s.trigger_id, s.delivery_key, s.agent_generation])).toEqual([
      [trigger(1), `run:${run}:run.completed`, 1],
      [trigger(2), `run:${run}:run.completed`, 1],
    ]);
    expect(asked[0][1].user_message).toBe('after the report is done');
  });

  it('starts only the triggers that follow the event, and none for an event that does not end a run', async () => {
    const { sut, asked } = setup();
    await sut.onRunEvent(ended({ event: EventNames.RunFailed, status: 'failed' }));
    expect(asked[0].map((s) => s.trigger_id)).toEqual([trigger(1)]);
    await sut.onRunEvent(ended({ event: EventNames.RunStarted, status: 'running' }));
    await sut.onRunEvent(ended({ agent_generation: 3 })); // a run of an earlier agent with the source's id
    expect(asked).toHaveLength(1);
  });

  it('records a refusal on its trigger and the start on the others', async () => {
    const { sut, store, outcomes } = setup((start) =>
      start.trigger_id === trigger(1)
        ? { refused: { type: 'urn:aas:problem:validation-failed', title: 'Bad Request', status: 400, detail: 'The agent is not deployed' } }
        : { run_id: 'r2', created: true },
    );
    await sut.onRunEvent(ended());
    expect(store.rows.get(trigger(1))).toMatchObject({ lastError: 'not started: The agent is not deployed', lastTriggeredAt: null });
    expect(store.rows.get(trigger(2))).toMatchObject({ lastError: null, lastTriggeredAt: expect.any(Date) });
    expect(await outcomes()).toEqual({ started: 1, refused: 1 });
  });
});
