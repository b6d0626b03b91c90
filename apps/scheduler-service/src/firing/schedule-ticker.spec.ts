import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Registry } from 'prom-client';
import { SchedulerEnv } from '../config/scheduler.env';
import { CronScheduleCache } from '../cron/cron-schedule-cache';
import { ScheduleEntity } from '../schedules/schedule.entity';
import { FakeScheduleStore, scheduleRow } from '../schedules/schedule.store.fake';
import { FireMetrics } from './fire-metrics';
import { ScheduleTicker } from './schedule-ticker';

const NOW = new Date('2026-03-02T10:05:30Z'); // five and a half minutes after a missed fire of 10:00
const at = (time: string) => new Date(`2026-03-02T${time}Z`);
const minutes = (...times: string[]) => times.map((t) => at(`${t}:00`).toISOString());

const SETTINGS: Partial<SchedulerEnv> = {
  SCHEDULER_TICK_MS: 100,
  SCHEDULER_LOOKAHEAD_MS: 1000,
  SCHEDULER_MISFIRE_THRESHOLD_MS: 60_000,
  SCHEDULER_CATCH_UP_MAX_FIRES: 100,
};

/** Agent ids that sort like their names, so a test reads which schedule is which. */
const agent = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe(ScheduleTicker.name, () => {
  beforeAll(() => Logger.overrideLogger(false)); // the evaluation errors it logs are expected here
  afterAll(() => Logger.overrideLogger(new Logger()));
  beforeEach(() => jest.useFakeTimers({ now: NOW, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  function setup(rows: ScheduleEntity[], settings: Partial<SchedulerEnv> = {}) {
    const store = new FakeScheduleStore(rows);
    const registry = new Registry();
    const values = { ...SETTINGS, ...settings } as Record<string, unknown>;
    const config = { get: (key: string) => values[key] } as unknown as ConfigService<SchedulerEnv, true>;
    const sut = new ScheduleTicker(store, new CronScheduleCache(), new FireMetrics(registry), config);
    const firesOf = (agentId: string) => store.outbox.filter((f) => f.agent_id === agentId).map((f) => f.fire_time);
    const counter = async (name: string, outcome?: string) =>
      (await registry.getSingleMetric(name)!.get()).values.find((v) => outcome === undefined || v.labels.outcome === outcome)?.value;
    /** One tick as the timer runs it: decides, commits, then counts. */
    const tick = async () => {
      sut.tick();
      await sut.onApplicationShutdown();
    };
    return { store, sut, firesOf, counter, tick };
  }

  it('takes the schedules due within the lookahead, fires each at its own time and moves it to its next one', async () => {
    const { store, sut, firesOf } = setup([
      scheduleRow({ agentId: agent(1), nextRunAt: at('10:05:00'), cron: '0 * * * * ? *' }),
      scheduleRow({ agentId: agent(2), nextRunAt: at('10:05:31'), cron: '* * * * * ? *', agentGeneration: '7' }),
      scheduleRow({ agentId: agent(3), nextRunAt: at('10:05:32'), cron: '* * * * * ? *' }), // beyond the lookahead
      scheduleRow({ agentId: agent(4), nextRunAt: at('10:05:00'), cron: '* * * * * ? *', paused: true }),
    ]);
    const result = await sut.fireDue();
    expect(result).toEqual({ fired: 2, skipped: 0, evaluationErrors: [] });
    expect(store.outbox).toContainEqual({ agent_id: agent(2), user_id: store.rows.get(agent(2))!.userId, fire_time: at('10:05:31').toISOString(), agent_generation: 7 });
    expect(firesOf(agent(1))).toEqual(minutes('10:05'));
    expect(store.rows.get(agent(1))!.nextRunAt).toEqual(at('10:06:00'));
    expect(store.rows.get(agent(2))!.nextRunAt).toEqual(at('10:05:32'));
    expect(store.rows.get(agent(3))!.nextRunAt).toEqual(at('10:05:32'));
    expect([firesOf(agent(3)), firesOf(agent(4))]).toEqual([[], []]);
  });

  it('fires a fire late by less than the misfire threshold, whatever its policy', async () => {
    const { store, sut, firesOf } = setup(
      (['skip', 'fire_once', 'catch_up'] as const).map((misfire, i) =>
        scheduleRow({ agentId: agent(i), nextRunAt: at('10:05:00'), misfire, catchUpWindowSeconds: misfire === 'catch_up' ? 3600 : null }),
      ),
    );
    await sut.fireDue();
    for (const i of [0, 1, 2]) {
      expect(firesOf(agent(i))).toEqual(minutes('10:05'));
      expect(store.rows.get(agent(i))!.nextRunAt).toEqual(at('10:06:00'));
    }
  });

  it('decides each missed schedule of one tick by its own misfire policy, window and the catch-up cap', async () => {
    const missed = (n: number, changes: Partial<ScheduleEntity>) => scheduleRow({ agentId: agent(n), nextRunAt: at('10:00:00'), overlap: 'allow', ...changes });
    const { store, sut, firesOf } = setup(
      [
        missed(1, { misfire: 'skip' }),
        missed(2, { misfire: 'fire_once' }),
        missed(3, { misfire: 'catch_up', catchUpWindowSeconds: 3600 }),
        missed(4, { misfire: 'catch_up', catchUpWindowSeconds: 150 }), // the window starts at 10:03:00
        missed(5, { misfire: 'catch_up', catchUpWindowSeconds: 3600, overlap: 'skip' }),
        missed(6, { misfire: 'catch_up', catchUpWindowSeconds: 3600, nextRunAt: at('09:50:00') }), // 16 missed, over the cap
      ],
      { SCHEDULER_CATCH_UP_MAX_FIRES: 10 },
    );
    const result = await sut.fireDue();
    expect(firesOf(agent(1))).toEqual([]);
    expect(firesOf(agent(2))).toEqual(minutes('10:00'));
    expect(firesOf(agent(3))).toEqual(minutes('10:00', '10:01', '10:02', '10:03', '10:04', '10:05'));
    expect(firesOf(agent(4))).toEqual(minutes('10:03', '10:04', '10:05'));
    // Under overlap skip only the oldest: the others would start while its run is unfinished.
    expect(firesOf(agent(5))).toEqual(minutes('10:00'));
    expect(firesOf(agent(6))).toEqual(minutes('09:50', '09:51', '09:52', '09:53', '09:54', '09:55', '09:56', '09:57', '09:58', '09:59'));
    // Whatever was fired or dropped, each moves to its first fire after now: a missed window is decided once.
    for (const n of [1, 2, 3, 4, 5, 6]) expect(store.rows.get(agent(n))!.nextRunAt).toEqual(at('10:06:00'));
    // skip, the window of 4, overlap of 5 and the cap of 6 each drop fires.
    expect(result).toMatchObject({ fired: 1 + 6 + 3 + 1 + 10, skipped: 4 });
  });

  it('a tick counts the fires its schedules dropped', async () => {
    const dropped = setup([scheduleRow({ agentId: agent(1), nextRunAt: at('10:00:00'), misfire: 'skip' })]);
    await dropped.tick();
    expect(await dropped.counter('aas_schedule_fires_total', 'skipped_misfire')).toBe(1);
  });

  it('finishes a schedule whose expression has no fire after the due one: it fires once and is never taken again', async () => {
    jest.setSystemTime(new Date('2026-06-01T00:00:00Z'));
    const { store, sut, firesOf } = setup([
      scheduleRow({ agentId: agent(1), cron: '1 0 10 1 5 ? 2026', nextRunAt: new Date('2026-05-01T10:00:01Z') }),
      scheduleRow({ agentId: agent(2), cron: '1 0 10 1 5 ? 2026', nextRunAt: new Date('2026-05-01T10:00:01Z'), misfire: 'skip' }),
    ]);
    await sut.fireDue();
    expect(firesOf(agent(1))).toEqual(['2026-05-01T10:00:01.000Z']);
    expect(firesOf(agent(2))).toEqual([]);
    expect([store.rows.get(agent(1))!.nextRunAt, store.rows.get(agent(2))!.nextRunAt]).toEqual([null, null]);
    expect(store.rows.get(agent(1))!.lastError).toBeNull(); // finished is not an error
    expect(await sut.fireDue()).toEqual({ fired: 0, skipped: 0, evaluationErrors: [] });
    expect(store.outbox).toHaveLength(1);
  });

  it('records an expression that can no longer be evaluated on its schedule alone; the others of its batch fire and move on', async () => {
    const { store, firesOf, counter, tick } = setup([
      // Sorted first in the batch, as the poison schedule of test/schedule-isolation.e2e-spec.ts.
      scheduleRow({ agentId: agent(1), cron: '0 0 0 1 1 ? 2099 extra-field', nextRunAt: at('10:05:10') }),
      scheduleRow({ agentId: agent(2), cron: '* * * * * ? *', nextRunAt: at('10:05:30'), overlap: 'allow' }),
      scheduleRow({ agentId: agent(3), cron: '0 * * * * ? *', nextRunAt: at('10:00:00'), misfire: 'catch_up', catchUpWindowSeconds: 3600, overlap: 'allow' }),
    ]);
    await tick();
    const [broken, healthy, catchingUp] = [1, 2, 3].map((n) => store.rows.get(agent(n))!);
    // Its due time was computed when the expression still evaluated: it fires, then the schedule stops.
    expect(firesOf(agent(1))).toEqual([at('10:05:10').toISOString()]);
    expect(broken).toMatchObject({ nextRunAt: null, lastError: expect.stringMatching(/can no longer be evaluated.*7 fields/) });
    expect(firesOf(agent(2))).toEqual([at('10:05:30').toISOString()]);
    expect(healthy).toMatchObject({ nextRunAt: at('10:05:31'), lastError: null });
    expect(firesOf(agent(3))).toHaveLength(6);
    expect(catchingUp).toMatchObject({ nextRunAt: at('10:06:00'), lastError: null });
    expect(await counter('aas_schedule_evaluation_errors_total')).toBe(1);
  });

  it('commits nothing of a tick whose writes fail: no schedule moves and no fire is recorded', async () => {
    const { store, sut } = setup([scheduleRow({ agentId: agent(1), nextRunAt: at('10:05:30') })]);
    const tick = store.tick.bind(store);
    jest.spyOn(store, 'tick').mockImplementation((work) =>
      tick((tx) => work({ ...tx, recordFires: () => Promise.reject(new Error('connection lost')) })),
    );
    await expect(sut.fireDue()).rejects.toThrow('connection lost');
    expect(store.rows.get(agent(1))!.nextRunAt).toEqual(at('10:05:30'));
    expect(store.outbox).toEqual([]);
  });
});
