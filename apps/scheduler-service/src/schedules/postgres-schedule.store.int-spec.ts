import { EventNames } from '@aas/contracts';
import { OutboxRelay, Transaction, afterCommit, dataSourceOptions, migrateSchema } from '@aas/platform';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { isolatedInfra, observerPool } from '../../../../test/support/isolated-infra';
import { SCHEDULER_SCHEMA } from '../database/scheduler-schema';
import { PostgresScheduleStore } from './postgres-schedule.store';

const infra = isolatedInfra();
const options = { ...SCHEDULER_SCHEMA, url: infra.databaseUrl, poolSize: 4 };
const USER = '0b6c1d8e-2f5a-4c3b-9d7e-1a2b3c4d5e6f';
const agent = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const run = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;
const DUE = new Date('2026-03-02T10:00:00Z');

/** The statements of the schedule store against the real schema, looked at through a connection of its own. */
describe(PostgresScheduleStore.name, () => {
  let dataSource: DataSource;
  let observer: Pool;
  let sut: PostgresScheduleStore;
  /** The relay's kicks, each once its tick committed. */
  let kicks = 0;
  const relay = { kickAfterCommit: (tx: Transaction) => afterCommit(tx, () => void kicks++) } as unknown as OutboxRelay;

  beforeAll(async () => {
    await migrateSchema(options);
    observer = observerPool(infra.databaseUrl, 'scheduler', 4);
    dataSource = new DataSource(dataSourceOptions(options));
    await dataSource.initialize();
    sut = new PostgresScheduleStore(dataSource, relay);
  });
  beforeEach(async () => {
    kicks = 0;
    await observer.query('TRUNCATE schedules, outbox');
  });
  afterAll(async () => {
    await dataSource.destroy();
    await observer.end();
    await infra.dispose();
  });

  async function stored(n: number, changes: { nextRunAt?: Date | null; paused?: boolean; generation?: number | null } = {}): Promise<string> {
    await sut.upsert({
      agentId: agent(n),
      agentGeneration: changes.generation ?? 1,
      userId: USER,
      cron: '0 * * * * ? *',
      timezone: null,
      overlap: 'skip',
      misfire: 'fire_once',
      catchUpWindowSeconds: null,
      nextRunAt: changes.nextRunAt === undefined ? DUE : changes.nextRunAt,
    });
    if (changes.paused) await sut.pause(USER, agent(n));
    if (changes.generation === null) await observer.query('UPDATE schedules SET agent_generation = NULL WHERE agent_id = $1', [agent(n)]);
    return agent(n);
  }

  const row = async (agentId: string) => (await observer.query('SELECT * FROM schedules WHERE agent_id = $1', [agentId])).rows[0];
  const outbox = async () => (await observer.query('SELECT event, payload FROM outbox ORDER BY id')).rows;

  describe('a tick', () => {
    it('locks the due schedules that are not paused, oldest first, up to the limit', async () => {
      await stored(1, { nextRunAt: new Date(DUE.getTime() + 2000) });
      await stored(2, { nextRunAt: DUE });
      await stored(3, { nextRunAt: new Date(DUE.getTime() + 1000) });
      await stored(4, { paused: true });
      await stored(5, { nextRunAt: null }); // finished
      await stored(6, { nextRunAt: new Date(DUE.getTime() + 5000) }); // beyond the horizon
      const taken = await sut.tick((tx) => tx.lockDue(new Date(DUE.getTime() + 2000), 10));
      expect(taken.map((s) => s.agentId)).toEqual([agent(2), agent(3), agent(1)]);
      expect((await sut.tick((tx) => tx.lockDue(new Date(DUE.getTime() + 2000), 2))).map((s) => s.agentId)).toEqual([agent(2), agent(3)]);
    });

    it('skips the schedules another tick holds, so two replicas never take the same one', async () => {
      for (const n of [1, 2, 3, 4]) await stored(n, { nextRunAt: new Date(DUE.getTime() + n) });
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const firstLocked = new Promise<void>((resolve) => (locked = resolve));
      let first: string[] = [];
      const firstTick = sut.tick(async (tx) => {
        first = (await tx.lockDue(new Date(DUE.getTime() + 2), 10)).map((s) => s.agentId);
        locked();
        await held;
      });
      await firstLocked;
      const second = await sut.tick(async (tx) => (await tx.lockDue(new Date(DUE.getTime() + 10), 10)).map((s) => s.agentId));
      release();
      await firstTick;
      expect(first).toEqual([agent(1), agent(2)]);
      expect(second).toEqual([agent(3), agent(4)]);
    });

    it('commits the moves, evaluation errors and fires together, then has the relay publish the fires', async () => {
      const [a, b] = [await stored(1), await stored(2)];
      const next = new Date(DUE.getTime() + 60_000);
      await sut.tick(async (tx) => {
        await tx.advance([
          { agentId: a, next },
          { agentId: b, next: null },
        ]);
        await tx.recordEvaluationErrors([{ agentId: b, error: 'cannot be evaluated' }]);
        await tx.recordFires([{ agent_id: a, user_id: USER, fire_time: DUE.toISOString(), agent_generation: 1 }]);
      });
      expect(await row(a)).toMatchObject({ next_run_at: next, last_error: null });
      expect(await row(b)).toMatchObject({ next_run_at: null, last_error: 'cannot be evaluated', last_error_at: expect.any(Date) });
      expect(await outbox()).toEqual([
        { event: EventNames.ScheduleFire, payload: { agent_id: a, user_id: USER, fire_time: DUE.toISOString(), agent_generation: 1 } },
      ]);
      expect(kicks).toBe(1);
    });

    it('rolls all of it back when its work fails: no schedule moves and no fire is published', async () => {
      const a = await stored(1);
      const failed = sut.tick(async (tx) => {
        await tx.advance([{ agentId: a, next: null }]);
        await tx.recordFires([{ agent_id: a, user_id: USER, fire_time: DUE.toISOString() }]);
        throw new Error('the tick failed');
      });
      await expect(failed).rejects.toThrow('the tick failed');
      expect((await row(a)).next_run_at).toEqual(DUE);
      expect([await outbox(), kicks]).toEqual([[], 0]);
    });
  });

  describe('failure counting and auto-pause', () => {
    it('counts each failed fire, keeps the last error, and pauses a schedule at the threshold only', async () => {
      const [a, b] = [await stored(1), await stored(2)];
      await sut.recordFireFailures(
        [
          { agentId: a, error: 'first' },
          { agentId: b, error: 'only' },
          { agentId: a, error: 'second' },
        ],
        3,
      );
      expect(await row(a)).toMatchObject({ consecutive_failures: 2, paused: false, auto_paused: false, last_error: 'second' });
      await sut.recordFireFailures([{ agentId: a, error: 'third' }], 3);
      expect(await row(a)).toMatchObject({ consecutive_failures: 3, paused: true, auto_paused: true, last_error: 'third' });
      expect(await row(b)).toMatchObject({ consecutive_failures: 1, paused: false });
    });

    it('a run end: failure counts and pauses at the threshold, success resets, a stop leaves the count', async () => {
      const a = await stored(1);
      await sut.recordActiveRuns([{ agentId: a, runId: run(1) }]);
      await sut.recordRunEnd(a, run(9), 'failure', 2, 1); // not the recorded run: it stays recorded
      expect(await row(a)).toMatchObject({ consecutive_failures: 1, paused: false, active_run_id: run(1) });
      await sut.recordRunEnd(a, run(1), 'neither', 2, 1);
      expect(await row(a)).toMatchObject({ consecutive_failures: 1, active_run_id: null });
      await sut.recordRunEnd(a, run(2), 'success', 2, 1);
      expect(await row(a)).toMatchObject({ consecutive_failures: 0 });
      await sut.recordRunEnd(a, run(3), 'failure', 2, 1);
      await sut.recordRunEnd(a, run(4), 'failure', 2, 1);
      expect(await row(a)).toMatchObject({ consecutive_failures: 2, paused: true, auto_paused: true });
    });

    it('the same end applied twice (its request answered too late, then its event) counts once', async () => {
      const a = await stored(1);
      await sut.recordRunEnd(a, run(1), 'failure', 5, 1);
      await sut.recordRunEnd(a, run(1), 'failure', 5, 1);
      expect(await row(a)).toMatchObject({ consecutive_failures: 1 });
      await sut.recordRunEnd(a, run(2), 'failure', 5, 1);
      expect(await row(a)).toMatchObject({ consecutive_failures: 2 });
    });

    it("a run of another agent generation changes nothing; one of a runs-service without generations counts", async () => {
      const a = await stored(1, { generation: 5 });
      await sut.recordRunEnd(a, run(1), 'failure', 2, 4);
      expect(await row(a)).toMatchObject({ consecutive_failures: 0 });
      await sut.recordRunEnd(a, run(1), 'failure', 2, null);
      expect(await row(a)).toMatchObject({ consecutive_failures: 1 });
    });

    it('resuming, or setting the schedule again, clears the count, auto-pause and the error', async () => {
      const a = await stored(1);
      await sut.recordFireFailures([{ agentId: a, error: 'x' }], 1);
      await sut.resume(USER, a, new Date(DUE.getTime() + 60_000), null);
      expect(await row(a)).toMatchObject({ consecutive_failures: 0, paused: false, auto_paused: false, last_error: 'x' });
      await sut.resume(USER, a, null, 'cannot be evaluated');
      expect(await row(a)).toMatchObject({ next_run_at: null, last_error: 'cannot be evaluated' });
      await sut.recordFireFailures([{ agentId: a, error: 'y' }], 1);
      await stored(1);
      expect(await row(a)).toMatchObject({ consecutive_failures: 0, paused: false, auto_paused: false, last_error: null, last_error_at: null });
    });
  });

  it('agent.deleted deletes the schedule of that generation or an older one, never a newer one', async () => {
    const a = await stored(1, { generation: 5 });
    await sut.deleteOfAgent(a, USER, 4);
    expect(await row(a)).toBeDefined();
    await sut.deleteOfAgent(a, USER, 5);
    expect(await row(a)).toBeUndefined();
  });
});
