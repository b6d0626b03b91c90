import { ListRunsMessage } from '@aas/contracts';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { undoMigrationsThrough } from '../../../../test/support/migrations';
import { RunsTestDatabase, openRunsTestDatabase } from '../database/runs-test-database';
import { PostgresRunListStore } from './postgres-run-list.store';

const infra = isolatedInfra();
const HISTORY = 5000;

/** filter_replay_of and filter_source_run_id against the real schema: which runs, and read from their partial indexes. */
describe('PostgresRunListStore links between runs', () => {
  let pool: Pool;
  let store: PostgresRunListStore;
  let database: RunsTestDatabase;
  const [user, agent, origin, source] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  let replays: string[];
  let started: string[];

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
    pool = database.pool;
    store = new PostgresRunListStore(database.dataSource);
    // A long history of unlinked runs, then two replays of `origin` and one run `source` started.
    await pool.query(
      `INSERT INTO runs (id, agent_id, user_id, agent_generation, run_number, run_mode, run_kind, trigger_kind, status, started_at, last_event_at)
       SELECT gen_random_uuid(), $1, $2, 1, n, 'run', 'api', 'api', 'completed', '2026-01-01'::timestamptz + n * interval '1 second', now()
         FROM generate_series(1, $3::int) AS n`,
      [agent, user, HISTORY],
    );
    const linked = async (column: string, to: string, n: number) =>
      (
        await pool.query(
          `INSERT INTO runs (id, agent_id, user_id, agent_generation, run_number, run_mode, run_kind, trigger_kind, status, started_at, last_event_at, ${column})
           VALUES (gen_random_uuid(), $1, $2, 1, $3::int, 'run', 'api', 'api', 'completed', '2026-02-01'::timestamptz + $3::int * interval '1 second', now(), $4) RETURNING id`,
          [agent, user, HISTORY + n, to],
        )
      ).rows[0].id as string;
    replays = [await linked('replay_of', origin, 1), await linked('replay_of', origin, 2)];
    started = [await linked('source_run_id', source, 3)];
    await pool.query('ANALYZE runs');
  });
  afterAll(async () => {
    await database?.close();
    await infra.dispose();
  });

  const message = (filters: Partial<ListRunsMessage>): ListRunsMessage => ({ user_id: user, agent_id: agent, ...filters }) as ListRunsMessage;

  it('lists the replays of a run and the runs a run started, newest first, with their totals; nothing for another user', async () => {
    expect((await store.page(message({ filter_replay_of: origin }), 0, 100)).map((r) => r.id)).toEqual([replays[1], replays[0]]);
    expect(await store.count(message({ filter_replay_of: origin }))).toBe(2);
    expect((await store.page(message({ filter_source_run_id: source }), 0, 100)).map((r) => r.id)).toEqual(started);
    expect(await store.page(message({ filter_source_run_id: origin }), 0, 100)).toEqual([]);
    expect(await store.page({ ...message({ filter_replay_of: origin }), user_id: randomUUID() }, 0, 100)).toEqual([]);
    const live = [{ agent_id: agent, generation: 1 }];
    expect((await store.pageAcrossAgents(user, live, { filter_replay_of: origin }, 0, 10)).map((r) => r.id)).toEqual([replays[1], replays[0]]);
    expect(await store.countAcrossAgents(user, live, { filter_source_run_id: source }, 100)).toEqual({ total: 1, estimate: false });
  });

  it.each([
    ['replay_of', 'runs_replay_of_idx'],
    ['source_run_id', 'runs_source_run_idx'],
  ])('reads a page filtered by %s from %s, not from the agent’s whole history', async (column, index) => {
    const { rows } = await pool.query(
      `EXPLAIN (FORMAT JSON) SELECT * FROM runs r WHERE r.agent_id = $1 AND r.user_id = $2 AND r.${column} = $3
        ORDER BY r.started_at DESC, r.run_number DESC LIMIT 100`,
      [agent, user, origin],
    );
    expect(JSON.stringify(rows[0]['QUERY PLAN'])).toContain(`"Index Name":"${index}"`);
  });

  // Last: it undoes the migration and applies it again over the same runs.
  it("the migration links the event runs kept before it to their trigger data's source run; an id that is no uuid links nothing", async () => {
    await undoMigrationsThrough(database.dataSource, 'RunReplays1764910000000');
    const insert = async (triggerKind: string, data: object) =>
      (
        await pool.query(
          `INSERT INTO runs (id, agent_id, user_id, run_number, run_mode, run_kind, trigger_kind, status, started_at, last_event_at, trigger_data)
           VALUES (gen_random_uuid(), $1, $2, 1, 'run', $3, $3, 'completed', now(), now(), $4) RETURNING id`,
          [randomUUID(), user, triggerKind, data],
        )
      ).rows[0].id as string;
    const event = await insert('event', { source_run: { run_id: source } });
    const garbled = await insert('event', { source_run: { run_id: 'x' } });
    const inbound = await insert('webhook', { source_run: { run_id: source } });
    await database.dataSource.runMigrations({ transaction: 'each' });
    const { rows } = await pool.query('SELECT id, source_run_id FROM runs WHERE id = ANY($1::uuid[])', [[event, garbled, inbound]]);
    expect(Object.fromEntries(rows.map((r) => [r.id, r.source_run_id]))).toEqual({ [event]: source, [garbled]: null, [inbound]: null });
  });
});
