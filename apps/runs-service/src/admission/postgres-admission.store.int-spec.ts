import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { OutboxRelay, Transaction, asTransaction, dataSourceOptions, transactionOn } from '@aas/platform';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { newRun } from '../acceptance/new-run';
import { RUNS_SCHEMA } from '../database/runs-schema';
import { RunsTestDatabase, openRunsTestDatabase } from '../database/runs-test-database';
import { RunEntity } from '../database/run.entity';
import { AdmissionLimits } from './admission-limits';
import { admitUser } from './admit-user';
import { PostgresAdmissionStore } from './postgres-admission.store';

const infra = isolatedInfra();

/** The admission SQL against the real schema: limits, order, and many admissions at once. */
describe('admission on PostgresAdmissionStore', () => {
  let database: RunsTestDatabase;
  let pool: Pool;
  /** More connections than the test database's own, for many admissions at once. */
  let wide: DataSource;
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const numbers = new Map<string, number>();

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
    pool = database.pool;
    wide = new DataSource(dataSourceOptions({ ...RUNS_SCHEMA, url: infra.databaseUrl, poolSize: 24 }));
    await wide.initialize();
  });
  afterAll(async () => {
    await wide?.destroy();
    await database?.close();
    await infra.dispose();
  });

  /** `count` runs of the agent accepted one millisecond apart after every run before them, waiting; oldest first. */
  async function waiting(userId: string, agentId: string, count: number): Promise<string[]> {
    const runs = Array.from({ length: count }, () => {
      const runNumber = (numbers.get(agentId) ?? 0) + 1;
      numbers.set(agentId, runNumber);
      return newRun({
        id: randomUUID(),
        agentId,
        agentGeneration: 1,
        userId,
        userEmail: 'u@example.test',
        runNumber,
        runMode: 'run',
        goal: null,
        trigger: { runKind: 'api', scheduleAgentId: null },
        startedAt: new Date((clock += 1)),
      });
    });
    // As acceptance stores them (admitted_at written as null).
    await database.dataSource.manager.createQueryBuilder().insert().into(RunEntity).values(runs).updateEntity(false).execute();
    return runs.map((r) => r.id);
  }

  const admit = (userId: string, limits: AdmissionLimits, on: DataSource = database.dataSource, mode: 'wait' | 'skip-if-busy' = 'wait') =>
    transactionOn(on, (_manager, tx) => admitUser(store(), tx, userId, limits, mode));
  /** The units of work the store asked the relay to publish after (kickAfterCommit). */
  const kickedAfter: Transaction[] = [];
  const relay = { kickAfterCommit: (tx: Transaction) => void kickedAfter.push(tx) } as unknown as OutboxRelay;
  const store = () => new PostgresAdmissionStore(database.dataSource, relay);

  async function executing(userId: string): Promise<Array<{ id: string; agent_id: string }>> {
    const { rows } = await pool.query(
      'SELECT id, agent_id FROM runs WHERE user_id = $1 AND admitted_at IS NOT NULL AND NOT is_finished ORDER BY started_at',
      [userId],
    );
    return rows;
  }

  const finish = (runIds: string[]) =>
    pool.query(`UPDATE runs SET is_finished = true, status = 'completed', finished_at = now() WHERE id = ANY($1::uuid[])`, [runIds]);

  async function queuedEvents(runIds: string[]): Promise<Array<{ run_id: string; priority: number }>> {
    const { rows } = await pool.query(
      `SELECT payload FROM outbox WHERE event = 'run.queued' AND payload->>'run_id' = ANY($1::text[]) ORDER BY seq`,
      [runIds],
    );
    return rows.map((row) => row.payload);
  }

  it('asks the relay to publish once the unit of work that queued runs commits, and not when it queued none', async () => {
    const user = randomUUID();
    await waiting(user, randomUUID(), 1);
    kickedAfter.length = 0;
    const units: Transaction[] = [];
    const admitted = await transactionOn(database.dataSource, async (_manager, tx) => {
      units.push(tx);
      return admitUser(store(), tx, user, { perUser: 1, perAgent: null });
    });
    expect([admitted!.length, kickedAfter]).toEqual([1, units]);
    expect(await admit(user, { perUser: 1, perAgent: null })).toEqual([]);
    expect(kickedAfter).toHaveLength(1);
  });

  it('admits the oldest waiting runs up to the user limit, each agent up to its own, and queues each once with its priority', async () => {
    const user = randomUUID();
    const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
    const xs = await waiting(user, x, 6);
    const ys = await waiting(user, y, 3);
    await waiting(user, z, 2);

    const admitted = await admit(user, { perUser: 4, perAgent: 2 });

    // x's later runs are older than y's, but x is at its own limit.
    expect(admitted!.map((r) => r.runId)).toEqual([xs[0], xs[1], ys[0], ys[1]]);
    expect((await executing(user)).map((r) => r.id)).toEqual([xs[0], xs[1], ys[0], ys[1]]);
    expect(await queuedEvents([...xs, ...ys])).toEqual([
      { run_id: xs[0], priority: 1 },
      { run_id: xs[1], priority: 2 },
      { run_id: ys[0], priority: 3 },
      { run_id: ys[1], priority: 4 },
    ]);
    expect(await admit(user, { perUser: 4, perAgent: 2 })).toEqual([]);
  });

  it('lets the oldest waiting run that fits take the room a finished run frees, with a priority after the runs still executing', async () => {
    const user = randomUUID();
    const [x, y] = [randomUUID(), randomUUID()];
    const xs = await waiting(user, x, 4);
    const ys = await waiting(user, y, 2);
    const limits = { perUser: 3, perAgent: 2 };
    await admit(user, limits); // xs[0], xs[1], ys[0]

    await finish([ys[0]]);
    expect((await admit(user, limits))!.map((r) => r.runId)).toEqual([ys[1]]); // x is still full
    await finish([xs[0]]);
    const next = await admit(user, limits);
    expect(next).toEqual([{ runId: xs[2], priority: 3 }]);
    expect((await executing(user)).map((r) => r.id)).toEqual([xs[1], xs[2], ys[1]]);
  });

  it('counts a run as executing until it is finished, whatever its status (paused, waiting for input)', async () => {
    const user = randomUUID();
    const agent = randomUUID();
    const runs = await waiting(user, agent, 3);
    await admit(user, { perUser: 2, perAgent: null });
    await pool.query(`UPDATE runs SET status = 'paused', is_paused = true, has_pending_input = true WHERE id = ANY($1::uuid[])`, [runs.slice(0, 2)]);
    expect(await admit(user, { perUser: 2, perAgent: null })).toEqual([]);
  });

  it('never admits a run that was cancelled or deleted while it waited', async () => {
    const user = randomUUID();
    const agent = randomUUID();
    const [cancelled, deleted, next] = await waiting(user, agent, 3);
    await pool.query(`UPDATE runs SET is_finished = true, status = 'stopped', finished_at = now() WHERE id = $1`, [cancelled]);
    await pool.query('DELETE FROM runs WHERE id = $1', [deleted]);

    expect((await admit(user, { perUser: 5, perAgent: 5 }))!.map((r) => r.runId)).toEqual([next]);
    expect(await queuedEvents([cancelled, deleted])).toEqual([]);
    const { rows } = await pool.query('SELECT admitted_at FROM runs WHERE id = $1', [cancelled]);
    expect(rows[0].admitted_at).toBeNull();
  });

  it('admits every waiting run when both limits are off', async () => {
    const user = randomUUID();
    const [x, y] = [randomUUID(), randomUUID()];
    const runs = [...(await waiting(user, x, 30)), ...(await waiting(user, y, 30))];
    expect(await admit(user, { perUser: null, perAgent: null })).toHaveLength(60);
    expect((await executing(user)).map((r) => r.id)).toEqual(runs);
  });

  it("admits only the user's own runs: another user's backlog takes none of its room", async () => {
    const [hostile, other] = [randomUUID(), randomUUID()];
    await waiting(hostile, randomUUID(), 50);
    const mine = await waiting(other, randomUUID(), 1);
    await admit(hostile, { perUser: 10, perAgent: 5 });
    expect((await admit(other, { perUser: 10, perAgent: 5 }))!.map((r) => r.runId)).toEqual(mine);
  });

  it('skips a waiting run another transaction holds (a cancel under way) rather than wait for it', async () => {
    const user = randomUUID();
    const agent = randomUUID();
    const [held, next] = await waiting(user, agent, 2);
    const holder = await pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM runs WHERE id = $1 FOR UPDATE', [held]);
      expect((await admit(user, { perUser: 1, perAgent: 1 }))!.map((r) => r.runId)).toEqual([next]);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it("answers null under skip-if-busy while another transaction admits the user's runs, and admits once it is done", async () => {
    const user = randomUUID();
    const [first, second] = await waiting(user, randomUUID(), 2);
    const runner = wide.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      expect((await admitUser(store(), asTransaction(runner.manager), user, { perUser: 1, perAgent: null }))!.map((r) => r.runId)).toEqual([first]);
      expect(await admit(user, { perUser: 2, perAgent: null }, database.dataSource, 'skip-if-busy')).toBeNull();
      // A waiting admission sees the first one's runs once it commits, and passes no limit.
      const waiter = admit(user, { perUser: 2, perAgent: null });
      await runner.commitTransaction();
      expect((await waiter)!.map((r) => r.runId)).toEqual([second]);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  });

  it('never passes either limit, nor admits a run twice, under many admissions at once while runs finish', async () => {
    const user = randomUUID();
    const agents = [randomUUID(), randomUUID(), randomUUID()];
    const limits = { perUser: 7, perAgent: 3 };
    const all: string[] = [];
    for (const agent of agents) all.push(...(await waiting(user, agent, 40)));

    for (let round = 0; round < 12; round++) {
      const now = await executing(user);
      const ending = now.filter((_, i) => i % 2 === round % 2).map((r) => r.id);
      await Promise.all([
        finish(ending),
        ...Array.from({ length: 16 }, (_, i) => admit(user, limits, wide, i % 4 === 0 ? 'skip-if-busy' : 'wait')),
      ]);
      const after = await executing(user);
      expect(after.length).toBeLessThanOrEqual(limits.perUser);
      for (const agent of agents) expect(after.filter((r) => r.agent_id === agent).length).toBeLessThanOrEqual(limits.perAgent);
    }
    // Once things settle, the room is used: the limit is reached, not just respected.
    await admit(user, limits);
    expect(await executing(user)).toHaveLength(limits.perUser);
    const events = await queuedEvents(all);
    expect(new Set(events.map((e) => e.run_id)).size).toBe(events.length);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM runs WHERE user_id = $1 AND admitted_at IS NOT NULL', [user]);
    expect(events).toHaveLength(rows[0].n);
  });

  it('lists for the sweep the users with waiting runs and room under the user limit', async () => {
    await pool.query('UPDATE runs SET is_finished = true WHERE NOT is_finished'); // the earlier tests' runs
    const [full, roomy, idle] = [randomUUID(), randomUUID(), randomUUID()];
    await waiting(full, randomUUID(), 3);
    await admit(full, { perUser: 2, perAgent: null });
    await waiting(roomy, randomUUID(), 1);
    await waiting(idle, randomUUID(), 1);
    await admit(idle, { perUser: 2, perAgent: null });

    expect(await store().usersToAdmit({ perUser: 2, perAgent: null })).toEqual([roomy]);
    expect((await store().usersToAdmit({ perUser: null, perAgent: null })).sort()).toEqual([full, roomy].sort());
  });

  it('admits the runs a runs-service of the previous version inserts (they queue themselves): the column defaults to now()', async () => {
    const user = randomUUID();
    const agent = randomUUID();
    await pool.query(
      `INSERT INTO runs (id, agent_id, user_id, run_number, run_mode, run_kind, trigger_kind, status, started_at, last_event_at)
       VALUES (gen_random_uuid(), $1, $2, 1, 'run', 'api', 'api', 'in_progress', now(), now())`,
      [agent, user],
    );
    expect(await executing(user)).toHaveLength(1);
  });
});
