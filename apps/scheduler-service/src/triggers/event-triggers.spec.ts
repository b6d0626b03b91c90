import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { EventNames, RUN_START_BATCH_MAX, RunLifecycleEvent, StartTriggeredRunsResponse, TriggeredRunStart } from '@aas/contracts';
import { Registry } from 'prom-client';
import { RunStartAllowance } from '../allowance/run-start-allowance';
import { SchedulerEnv } from '../config/scheduler.env';
import { EventTriggers } from './event-triggers';
import { ExhaustedChains } from './exhausted-chains';
import { TriggerMetrics } from './trigger-metrics';
import { FakeTriggerStore, triggerRow } from './trigger.store.fake';
import { TriggeredRunStarter } from './triggered-run-starter';

const SOURCE = '00000000-0000-4000-8000-000000000001';
const FOLLOWER = '00000000-0000-4000-8000-000000000002';
const trigger = (n: number) => `00000000-0000-4000-a000-${String(n).padStart(12, '0')}`;
const MAX_DEPTH = 3;
const PAYLOAD_MAX = 2048;
const ROOT = '00000000-0000-4000-9000-0000000000ff';

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

  function setup(
    answer: (start: TriggeredRunStart) => StartTriggeredRunsResponse['outcomes'][number] = () => ({ run_id: 'r', created: true }),
    { allowance = Infinity, followers = 0 } = {},
  ) {
    const store = new FakeTriggerStore([
      triggerRow({ id: trigger(1), agentId: FOLLOWER, kind: 'event', sourceAgentId: SOURCE, sourceAgentGeneration: '4', events: [EventNames.RunCompleted, EventNames.RunFailed], verification: null }),
      triggerRow({ id: trigger(2), agentId: FOLLOWER, kind: 'event', sourceAgentId: SOURCE, sourceAgentGeneration: '4', events: [EventNames.RunCompleted], verification: null, messageTemplate: 'after {{source_run.summary}}' }),
      ...Array.from({ length: followers }, (_, i) =>
        triggerRow({ id: trigger(100 + i), agentId: FOLLOWER, kind: 'event', sourceAgentId: SOURCE, sourceAgentGeneration: '4', events: [EventNames.RunCompleted], verification: null }),
      ),
    ]);
    const asked: TriggeredRunStart[][] = [];
    const runs = { start: async (starts: TriggeredRunStart[]) => (asked.push(starts), starts.map(answer)) } as unknown as TriggeredRunStarter;
    const registry = new Registry();
    const settings: Partial<SchedulerEnv> = { TRIGGER_MAX_DEPTH: MAX_DEPTH, TRIGGER_PAYLOAD_MAX_BYTES: PAYLOAD_MAX };
    const config = { get: (key: keyof SchedulerEnv) => settings[key] } as unknown as ConfigService<SchedulerEnv, true>;
    let left = allowance;
    const starts = {
      take: async (_user: string, wanted: number) => {
        const granted = Math.min(wanted, left);
        left -= granted;
        return { granted, retryAfterSeconds: 42 };
      },
      usedUpReason: (seconds: number) => `the allowance is used up; retry after ${seconds} s`,
    } as unknown as RunStartAllowance;
    const sut = new EventTriggers(store, runs, new TriggerMetrics(registry), starts, new ExhaustedChains(), config);
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

  describe('chains', () => {
    it("continues the source run's chain, or starts one at the source run when it names none", async () => {
      const { sut, asked } = setup();
      const root = ROOT;
      await sut.onRunEvent(ended({ chain_root_id: root, trigger_depth: 1 }));
      await sut.onRunEvent(ended({ run_id: '00000000-0000-4000-9000-000000000002' }));
      expect(asked.map((batch) => batch.map((s) => s.chain_root_id))).toEqual([
        [root, root],
        ['00000000-0000-4000-9000-000000000002', '00000000-0000-4000-9000-000000000002'],
      ]);
    });

    it("counts a refusal for the chain's run limit apart, and records it on its trigger", async () => {
      const problem = { type: 'urn:aas:problem:quota-exceeded', title: 'Unprocessable Entity', status: 422, detail: 'The chain has started 5 runs', quota: 'trigger_chain_runs', limit: 5 };
      const { sut, store, outcomes } = setup((start) => (start.trigger_id === trigger(2) ? { refused: problem } : { run_id: 'r', created: true }));
      await sut.onRunEvent(ended());
      expect(store.rows.get(trigger(2))!.lastError).toBe('not started: The chain has started 5 runs');
      expect(await outcomes()).toEqual({ started: 1, refused_chain: 1 });
    });

    it('refuses the further starts of a chain found full from memory, asking runs-service nothing', async () => {
      const problem = { type: 'urn:aas:problem:quota-exceeded', title: 'Unprocessable Entity', status: 422, detail: 'The chain has started 5 runs', quota: 'trigger_chain_runs', limit: 5 };
      const { sut, store, asked, outcomes } = setup(() => ({ refused: problem }));
      await sut.onRunEvent(ended({ chain_root_id: ROOT }));
      await sut.onRunEvent(ended({ chain_root_id: ROOT, run_id: '00000000-0000-4000-9000-000000000003' }));
      expect(asked).toHaveLength(1);
      expect(store.rows.get(trigger(1))!.lastError).toBe('not started: The chain has started 5 runs');
      expect(await outcomes()).toEqual({ refused_chain: 4 });
      await sut.onRunEvent(ended({ chain_root_id: '00000000-0000-4000-9000-0000000000fe' }));
      expect(asked).toHaveLength(2);
    });
  });

  it(`sends more than ${RUN_START_BATCH_MAX} followers to runs-service in batches it accepts, and records every start`, async () => {
    const { sut, store, asked, outcomes } = setup(undefined, { followers: 600 });
    await sut.onRunEvent(ended());
    expect(asked.map((batch) => batch.length)).toEqual([RUN_START_BATCH_MAX, 602 - RUN_START_BATCH_MAX]);
    expect(new Set(asked.flat().map((s) => s.trigger_id)).size).toBe(602);
    expect([...store.rows.values()].every((t) => t.lastTriggeredAt !== null)).toBe(true);
    expect(await outcomes()).toEqual({ started: 602 });
  });

  it("starts no more than the owner's allowance has room for, and records the others as refused", async () => {
    const { sut, store, asked, outcomes } = setup(undefined, { allowance: 1 });
    await sut.onRunEvent(ended());
    expect(asked.flat().map((s) => s.trigger_id)).toEqual([trigger(1)]);
    expect(store.rows.get(trigger(2))).toMatchObject({ lastError: 'not started: the allowance is used up; retry after 42 s', lastTriggeredAt: null });
    expect(await outcomes()).toEqual({ started: 1, refused_allowance: 1 });
  });

  it('keeps a source run within TRIGGER_PAYLOAD_MAX_BYTES, its summary cut', async () => {
    const { sut, asked } = setup();
    await sut.onRunEvent(ended({ summary: 'x'.repeat(10_000) }));
    const [start] = asked[0];
    expect(Buffer.byteLength(JSON.stringify(start.data))).toBeLessThanOrEqual(PAYLOAD_MAX);
    expect(start.data).toMatchObject({ source_run: { summary_truncated: true, summary: expect.stringMatching(/^x{1000,}$/) } });
  });
});
