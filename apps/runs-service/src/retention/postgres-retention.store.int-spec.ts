import { ConfigService } from '@nestjs/config';
import { randomUUID } from 'node:crypto';
import { RunRetentionsResponse } from '@aas/contracts';
import { OutboxRelay, PostgresTransactions, ServiceClient, Transaction, transactionOn } from '@aas/platform';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { newRun } from '../acceptance/new-run';
import { RunsEnv } from '../config/runs.env';
import { RunEntity } from '../database/run.entity';
import { RunsTestDatabase, openRunsTestDatabase } from '../database/runs-test-database';
import { PostgresRetentionStore } from './postgres-retention.store';
import { PurgeScope } from './retention.store';
import { RunRetention } from './run-retention';

const infra = isolatedInfra();
const DAY_MS = 86_400_000;

/** The retention purge's statement against the real schema: what is due, batches, SKIP LOCKED, counts and the outbox. */
describe('the retention purge on PostgreSQL', () => {
  let database: RunsTestDatabase;
  const kickedAfter: Transaction[] = [];
  const relay = { kickAfterCommit: (tx: Transaction) => void kickedAfter.push(tx) } as unknown as OutboxRelay;
  let store: PostgresRetentionStore;
  const numbers = new Map<string, number>();

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
    store = new PostgresRetentionStore(database.dataSource, relay);
  });
  afterAll(async () => {
    await database?.close();
    await infra.dispose();
  });
  /** Each test on runs of its own: nothing due is left behind by another test. */
  beforeEach(() => database.pool.query('DELETE FROM runs'));

  /**
   * `count` runs of the agent that finished `daysAgo` days ago (null: still running), each with `events`
   * events, a millisecond apart (the first ended longest ago); answers their ids in that order.
   */
  async function runs(agentId: string, count: number, daysAgo: number | null, events = 2, userId = randomUUID()): Promise<string[]> {
    const base = Date.now() - (daysAgo ?? 0) * DAY_MS - count;
    const rows = Array.from({ length: count }, (_, i) => {
      const runNumber = (numbers.get(agentId) ?? 0) + 1;
      numbers.set(agentId, runNumber);
      const trigger = { runKind: 'api', scheduleAgentId: null } as const;
      return newRun({ id: randomUUID(), agentId, agentGeneration: 1, userId, userEmail: 'u@example.test', runNumber, runMode: 'run', goal: null, trigger, startedAt: new Date(base + i) });
    });
    await database.dataSource.manager.createQueryBuilder().insert().into(RunEntity).values(rows).updateEntity(false).execute();
    const ids = rows.map((r) => r.id);
    await database.pool.query(
      `INSERT INTO run_events (run_id, event_index, recorded_at, event) SELECT id, i, now(), '{}' FROM unnest($1::uuid[]) AS id, generate_series(1, $2) AS i`,
      [ids, events],
    );
    if (daysAgo !== null) {
      await database.pool.query(
        `UPDATE runs SET is_finished = true, status = 'completed', event_count = $2, finished_at = started_at WHERE id = ANY($1::uuid[])`,
        [ids, events],
      );
    }
    return ids;
  }

  const purge = (scope: PurgeScope, limit = 100) => transactionOn(database.dataSource, (_manager, tx) => store.purgeBatch(tx, scope, limit));
  const everyAgent = (olderThanDays: number): PurgeScope => ({ olderThanDays, exceptAgentIds: [] });

  async function left(ids: string[]): Promise<{ runs: number; events: number }> {
    const [runs, events] = await Promise.all([
      database.pool.query(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[])`, [ids]),
      database.pool.query(`SELECT count(*)::int AS n FROM run_events WHERE run_id = ANY($1::uuid[])`, [ids]),
    ]);
    return { runs: runs.rows[0].n, events: events.rows[0].n };
  }

  it('deletes exactly the finished runs that ended before the retention, with their events, and records runs.purged for them', async () => {
    const agent = randomUUID();
    const due = await runs(agent, 3, 31, 4);
    const young = await runs(agent, 2, 29);
    const running = await runs(agent, 2, null);
    const batch = await purge(everyAgent(30));

    expect(batch.runIds.sort()).toEqual([...due].sort());
    expect(batch.events).toBe(12);
    expect(await left(due)).toEqual({ runs: 0, events: 0 });
    expect(await left([...young, ...running])).toEqual({ runs: 4, events: 8 });
    const { rows } = await database.pool.query(`SELECT payload FROM outbox WHERE event = 'runs.purged' AND payload->'run_ids' ? $1`, [due[0]]);
    expect(rows.map((row) => [...row.payload.run_ids].sort())).toEqual([[...due].sort()]);
    expect(kickedAfter.length).toBeGreaterThan(0);
  });

  it('keeps the run list counts of the agent true (its triggers fire for the purge as for any delete)', async () => {
    const agent = randomUUID();
    await runs(agent, 5, 40);
    await runs(agent, 2, 1);
    await purge(everyAgent(30));
    const { rows } = await database.pool.query(`SELECT sum(runs)::int AS n FROM run_list_counts WHERE agent_id = $1`, [agent]);
    expect(rows[0].n).toBe(2);
  });

  it('deletes at most a batch per transaction, oldest end first, and records nothing when nothing is due', async () => {
    const agent = randomUUID();
    const older = await runs(agent, 3, 60);
    const newer = await runs(agent, 3, 45);
    expect((await purge(everyAgent(30), 4)).runIds.sort()).toEqual([...older, newer[0]].sort());
    expect((await purge(everyAgent(30), 4)).runIds.sort()).toEqual(newer.slice(1).sort());
    const outboxBefore = (await database.pool.query(`SELECT count(*)::int AS n FROM outbox`)).rows[0].n;
    expect(await purge(everyAgent(30), 4)).toEqual({ runIds: [], events: 0 });
    expect((await database.pool.query(`SELECT count(*)::int AS n FROM outbox`)).rows[0].n).toBe(outboxBefore);
  });

  it('skips a run another transaction holds, without waiting for it, and takes it on a later purge', async () => {
    const agent = randomUUID();
    const [held, free] = await runs(agent, 2, 40);
    const holder = await database.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM runs WHERE id = $1 FOR UPDATE', [held]);
      const started = Date.now();
      expect((await purge(everyAgent(30))).runIds).toEqual([free]);
      expect(Date.now() - started).toBeLessThan(2000);
      await holder.query('ROLLBACK');
    } finally {
      holder.release();
    }
    expect((await purge(everyAgent(30))).runIds).toEqual([held]);
  });

  it('purges only the agents a scope names, or every agent but those it leaves out', async () => {
    const [own, other] = [randomUUID(), randomUUID()];
    const ownRuns = await runs(own, 2, 3);
    const otherRuns = await runs(other, 2, 3);
    expect((await purge({ olderThanDays: 1, exceptAgentIds: [own] })).runIds.sort()).toEqual([...otherRuns].sort());
    expect((await purge({ olderThanDays: 7, agentIds: [own], exceptAgentIds: [] })).runIds).toEqual([]);
    expect((await purge({ olderThanDays: 1, agentIds: [own], exceptAgentIds: [] })).runIds.sort()).toEqual([...ownRuns].sort());
  });

  it('RunRetention goes through every batch until one comes back short, and stops between batches when told to', async () => {
    const settings: Partial<RunsEnv> = { RUN_RETENTION_DAYS: 30, RUN_PURGE_BATCH_SIZE: 3, RUN_PURGE_PAUSE_MS: 0 };
    const config = { get: (key: keyof RunsEnv) => settings[key] } as unknown as ConfigService<RunsEnv, true>;
    // agents-service's answer (AgentsPatterns.RunRetentions): the workspaces with their own retention.
    let retentions: RunRetentionsResponse['retentions'] = [];
    const agents = { request: async () => ({ retentions }) } as unknown as ServiceClient;
    const retention = new RunRetention(store, new PostgresTransactions(database.dataSource), config, agents);
    const agent = randomUUID();
    const due = await runs(agent, 8, 31, 1);
    const kept = await runs(agent, 2, 2, 1);

    expect(await retention.purgeDue(() => true)).toEqual({ runs: 3, events: 3 });
    expect(await retention.purgeDue()).toEqual({ runs: 5, events: 5 });
    expect(await left(due)).toEqual({ runs: 0, events: 0 });
    expect(await left(kept)).toEqual({ runs: 2, events: 2 });
    settings.RUN_RETENTION_DAYS = 0;
    expect(await retention.purgeDue()).toEqual({ runs: 0, events: 0 });
    retentions = [{ days: 1, agent_ids: [agent] }];
    expect(await retention.purgeDue()).toEqual({ runs: 2, events: 2 });
  });

  it("deletes what a user's deletion matches in batches, only finished runs of that user, and tells when runs it matched are still held", async () => {
    const [agent, other] = [randomUUID(), randomUUID()];
    const user = randomUUID();
    const finished = await runs(agent, 5, 0, 1, user);
    const running = await runs(agent, 1, null, 1, user);
    const strangers = await runs(other, 2, 0, 1);
    const agents = [{ agent_id: agent, generation: 1 }];
    const { matched, now } = await transactionOn(database.dataSource, (_m, tx) => store.countDeletable(tx, user, agents, {}));
    expect(matched).toBe(5);
    const stored = await transactionOn(database.dataSource, (_m, tx) =>
      store.insertDeletion(tx, { userId: user, agents, filters: {}, finishedBefore: now, matched }),
    );
    const twice = await transactionOn(database.dataSource, (_m, tx) =>
      store.insertDeletion(tx, { userId: user, agents, filters: {}, finishedBefore: now, matched }),
    );
    expect([stored, twice]).toEqual([true, false]);
    const deletion = (await store.findDeletion(user))!;

    const holder = await database.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM runs WHERE id = $1 FOR UPDATE', [finished[4]]);
      const batch = (limit: number) => transactionOn(database.dataSource, (_m, tx) => store.deletionBatch(tx, deletion, limit));
      expect((await batch(3)).runIds.sort()).toEqual(finished.slice(0, 3).sort());
      expect((await batch(3)).runIds).toEqual([finished[3]]);
      expect(await store.deletionRemains(deletion)).toBe(true);
      await holder.query('ROLLBACK');
      expect((await batch(3)).runIds).toEqual([finished[4]]);
    } finally {
      holder.release();
    }
    expect(await store.deletionRemains(deletion)).toBe(false);
    expect((await store.findDeletion(user))!.deleted).toBe(5);
    expect(await left([...running, ...strangers])).toEqual({ runs: 3, events: 3 });
    await store.finishDeletion(deletion);
    expect(await store.findDeletion(user)).toBeUndefined();
  });
});
