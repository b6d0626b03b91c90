import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { ConflictError, QuotaExceededError } from '@aas/problem-details';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { RunsTestDatabase, openRunsTestDatabase } from '../database/runs-test-database';
import { BulkActionStore, NewBulkAction } from './bulk-action.store';

const infra = isolatedInfra();

/** bulk_actions against the real schema: resolved once, each run's result counted once, stale chunks doing nothing. */
describe('BulkActionStore', () => {
  let database: RunsTestDatabase;
  let pool: Pool;
  let store: BulkActionStore;

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
    pool = database.pool;
    store = new BulkActionStore(database.dataSource);
  });
  afterAll(async () => {
    await database?.close();
    await infra.dispose();
  });

  /** An action over `count` made-up runs (the statement stands for the run list's). */
  function action(userId: string, count: number, idempotencyKey: string | null = null): NewBulkAction {
    const ids = Array.from({ length: count }, () => randomUUID());
    return {
      userId,
      action: 'cancel',
      filter: { filter_status: 'in_progress' },
      instructions: null,
      idempotencyKey,
      runs: { sql: 'SELECT unnest($1::uuid[]) AS id, unnest($2::uuid[]) AS agent_id', parameters: [ids, ids.map(() => randomUUID())] },
    };
  }
  const allow = () => null;
  const tooMany = () => new QuotaExceededError('too many', 'bulk_action_runs', 3);
  const chunkEvents = async (id: string): Promise<number[]> =>
    (await pool.query(`SELECT (payload->>'chunk')::int AS chunk FROM outbox WHERE event = 'bulk_action.chunk' AND payload->>'bulk_action_id' = $1 ORDER BY 1`, [id])).rows.map((r) => r.chunk);

  it('stores the action with its runs and its first chunk in one transaction, and answers the same action for the same key', async () => {
    const user = randomUUID();
    const { row, created } = await store.create(action(user, 3, 'key-1'), 3, allow, tooMany);
    expect(created).toBe(true);
    expect(row).toMatchObject({ status: 'queued', matched: 3, chunk: 1 });
    expect(await chunkEvents(row.id)).toEqual([1]);
    const again = await store.create(action(user, 2, 'key-1'), 3, allow, tooMany);
    expect(again).toMatchObject({ created: false, row: { id: row.id, matched: 3 } });
  });

  it('refuses more runs than the cap, or what the check refuses, storing nothing', async () => {
    const user = randomUUID();
    await expect(store.create(action(user, 4), 3, allow, tooMany)).rejects.toBeInstanceOf(QuotaExceededError);
    let seen = -1;
    const refuse = (activity: { active: number }) => ((seen = activity.active), new ConflictError('no'));
    await expect(store.create(action(user, 1), 3, refuse, tooMany)).rejects.toBeInstanceOf(ConflictError);
    expect(seen).toBe(0);
    expect((await pool.query(`SELECT count(*)::int AS n FROM bulk_actions WHERE user_id = $1`, [user])).rows[0].n).toBe(0);
  });

  it('completes an action that matched nothing at once, without a chunk', async () => {
    const { row } = await store.create(action(randomUUID(), 0), 3, allow, tooMany);
    expect(row.status).toBe('completed');
    expect(row.finished_at).toBeInstanceOf(Date);
    expect(await chunkEvents(row.id)).toEqual([]);
  });

  it('counts a run once however often its result is recorded, and ignores stale or repeated chunks', async () => {
    const { row } = await store.create(action(randomUUID(), 3), 3, allow, tooMany);
    expect(await store.claimChunk(row.id, 2, 2)).toBeNull();
    const first = await store.claimChunk(row.id, 1, 2);
    expect(first?.row.status).toBe('running');
    expect(first?.runs.map((r) => r.position)).toEqual([1, 2]);
    await store.record(row.id, first!.runs[0], { result: 'done', resultRunId: null });
    await store.record(row.id, first!.runs[0], { result: 'skipped', detail: 'again' });
    await store.record(row.id, first!.runs[1], { result: 'failed', detail: 'refused' });
    await store.finishChunk(row.id, 1);
    await store.finishChunk(row.id, 1);
    expect(await chunkEvents(row.id)).toEqual([1, 2]);
    expect(await store.claimChunk(row.id, 1, 2)).toBeNull();

    const second = await store.claimChunk(row.id, 2, 2);
    expect(second?.runs.map((r) => r.position)).toEqual([3]);
    await store.record(row.id, second!.runs[0], { result: 'skipped', detail: 'finished' });
    await store.finishChunk(row.id, 2);
    expect(await chunkEvents(row.id)).toEqual([1, 2]);
    const done = await store.find(row.user_id, row.id);
    expect(done).toMatchObject({ status: 'completed', matched: 3, done: 1, failed: 1, skipped: 1 });
    expect(await store.abort(row.user_id, row.id)).toBeUndefined();
  });

  it('aborts an active action for its user only; its chunk then finds nothing to do', async () => {
    const { row } = await store.create(action(randomUUID(), 2), 3, allow, tooMany);
    expect(await store.abort(randomUUID(), row.id)).toBeUndefined();
    expect((await store.abort(row.user_id, row.id))?.status).toBe('aborted');
    expect(await store.isActive(row.id)).toBe(false);
    expect(await store.claimChunk(row.id, 1, 2)).toBeNull();
  });
});
