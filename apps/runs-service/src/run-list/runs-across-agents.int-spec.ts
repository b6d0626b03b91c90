import { ListRunsQuery } from '@aas/contracts';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { RunsTestDatabase, openRunsTestDatabase } from '../database/runs-test-database';
import { PER_AGENT_MERGE_MAX_ROWS, PostgresRunListStore } from './postgres-run-list.store';

const infra = isolatedInfra();

/** The statements of GET /v1/runs against the real schema: which runs, in which order, and how totals are told. */
describe('PostgresRunListStore across agents', () => {
  let pool: Pool;
  let store: PostgresRunListStore;
  let database: RunsTestDatabase;
  let runNumber = 0;

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
    pool = database.pool;
    store = new PostgresRunListStore(database.dataSource);
  });
  afterAll(async () => {
    await database?.close();
    await infra.dispose();
  });

  /** Runs started one second apart from `at`, oldest first; answers their ids. */
  async function insertRuns(user: string, agent: string, generation: number | null, goals: string[], at: Date): Promise<string[]> {
    const first = runNumber + 1;
    runNumber += goals.length;
    const { rows } = await pool.query(
      `INSERT INTO runs (id, agent_id, user_id, agent_generation, run_number, run_mode, run_kind, trigger_kind, status, goal, started_at, last_event_at)
       SELECT gen_random_uuid(), $1, $2, $3, $4 + g.n - 1, 'run', 'api', 'api', 'in_progress', g.goal, $6::timestamptz + g.n * interval '1 second', now()
         FROM unnest($5::text[]) WITH ORDINALITY AS g(goal, n)
       RETURNING id`,
      [agent, user, generation, first, goals, at.toISOString()],
    );
    return rows.map((row) => row.id);
  }

  it("pages one user's runs of the live generations, newest first across agents, never another user's", async () => {
    const [user, other, a, b] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const t = new Date('2026-01-01T00:00:00Z');
    const fromA = await insertRuns(user, a, 1, ['a1', 'a2'], t);
    const fromB = await insertRuns(user, b, 7, ['b1'], new Date(t.getTime() + 1500));
    const legacy = await insertRuns(user, b, null, ['b0'], new Date(t.getTime() - 10_000));
    await insertRuns(user, b, 6, ['an earlier agent that had the same id'], t);
    await pool.query('INSERT INTO agent_generations (agent_id, user_id, generation) VALUES ($1, $2, 6)', [b, user]);
    await insertRuns(other, a, 1, ['not theirs'], t);
    const live = [{ agent_id: a, generation: 1 }, { agent_id: b, generation: 7 }];

    const page = await store.pageAcrossAgents(user, live, {}, 0, 10);
    expect(page.map((r) => r.id)).toEqual([fromB[0], fromA[1], fromA[0], legacy[0]]);
    expect((await store.pageAcrossAgents(user, live, {}, 1, 2)).map((r) => r.id)).toEqual([fromA[1], fromA[0]]);
    // Past PER_AGENT_MERGE_MAX_ROWS index rows the user's index is walked instead: the same runs, in the same order.
    expect((await store.pageAcrossAgents(user, live, {}, 0, PER_AGENT_MERGE_MAX_ROWS)).map((r) => r.id)).toEqual(page.map((r) => r.id));
    expect((await store.pageAcrossAgents(user, live, { filter_goal: 'B' }, 0, PER_AGENT_MERGE_MAX_ROWS)).map((r) => r.id)).toEqual([fromB[0], legacy[0]]);
    expect((await store.pageAcrossAgents(user, live, { filter_goal: 'B' }, 0, 10)).map((r) => r.id)).toEqual([fromB[0], legacy[0]]);
    expect((await store.pageAcrossAgents(user, [live[0]], {}, 0, 10)).map((r) => r.id)).toEqual([fromA[1], fromA[0]]);
    expect(await store.pageAcrossAgents(other, live, { filter_goal: 'b' }, 0, 10)).toEqual([]);
    expect(await store.countAcrossAgents(user, live, {}, 100)).toEqual({ total: 4, estimate: false });
    expect(await store.countAcrossAgents(user, live, { filter_status: 'in_progress' }, 100)).toEqual({ total: 4, estimate: false });
  });

  it('counts from the kept counts when the filters allow, else exactly up to the bound and an estimate beyond', async () => {
    const [user, a] = [randomUUID(), randomUUID()];
    await insertRuns(user, a, 1, ['deploy 1', 'deploy 2', 'deploy 3', 'deploy 4', 'backup'], new Date('2026-02-01T00:00:00Z'));
    const live = [{ agent_id: a, generation: 1 }];
    const count = (query: ListRunsQuery, exactUpTo: number) => store.countAcrossAgents(user, live, query, exactUpTo);

    expect(await count({ filter_goal: 'deploy' }, 4)).toEqual({ total: 4, estimate: false });
    expect(await count({}, 2)).toEqual({ total: 5, estimate: false });
    expect(await count({ filter_status: 'in_progress' }, 2)).toEqual({ total: 5, estimate: false });
    const beyond = await count({ filter_goal: 'deploy' }, 2);
    expect(beyond.estimate).toBe(true);
    expect(beyond.total).toBeGreaterThanOrEqual(3);
  });
});
