import { randomUUID } from 'node:crypto';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { undoMigrationsThrough } from '../../../../test/support/migrations';
import { RunsTestDatabase, openRunsTestDatabase } from './runs-test-database';

const infra = isolatedInfra();
const USER = randomUUID();
const STATUSES = ['in_progress', 'paused', 'completed', 'error', 'stopped'];

/** run_list_counts against the real schema: after any change to runs it holds exactly what grouping the runs gives. */
describe('run_list_counts', () => {
  let dataSource: DataSource;
  let pool: Pool;
  let runNumber = 0;

  let database: RunsTestDatabase;

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
    ({ dataSource, pool } = database);
  });
  afterAll(async () => {
    await database?.close();
    await infra.dispose();
  });

  /** Inserts `count` runs of the agent in one statement, with statuses, modes and emails varying by row. */
  async function insertRuns(agentId: string, count: number, client: Pick<Pool, 'query'> = pool): Promise<string[]> {
    const first = runNumber + 1;
    runNumber += count;
    const { rows } = await client.query(
      `INSERT INTO runs.runs (id, agent_id, user_id, user_email, run_number, run_mode, run_kind, trigger_kind, status,
                              is_finished, policy_type, started_at, last_event_at)
       SELECT gen_random_uuid(), $1, $2, (ARRAY['A@x.test', 'a@X.test', NULL])[n % 3 + 1], n,
              CASE WHEN n % 4 = 0 THEN 'build' ELSE 'run' END, 'api', 'api', s, s IN ('completed', 'error', 'stopped'),
              CASE WHEN n % 5 = 0 THEN NULL WHEN n % 4 = 0 THEN 'builder' ELSE 'runner' END, now(), now()
         FROM generate_series($3::int, $4::int) AS n, LATERAL (SELECT ($5::text[])[n % 5 + 1] AS s) AS st
       RETURNING id`,
      [agentId, USER, first, runNumber, STATUSES],
    );
    return rows.map((row) => row.id);
  }

  async function expectCountsExact(): Promise<void> {
    const key = 'agent_id, user_id, status, is_finished, run_mode, policy_type, user_email_lower';
    const { rows } = await pool.query(`
      (SELECT ${key}, runs FROM run_list_counts
       EXCEPT SELECT agent_id, user_id, status, is_finished, run_mode, policy_type, lower(user_email), count(*) FROM runs GROUP BY 1, 2, 3, 4, 5, 6, 7)
      UNION ALL
      (SELECT agent_id, user_id, status, is_finished, run_mode, policy_type, lower(user_email), count(*) FROM runs GROUP BY 1, 2, 3, 4, 5, 6, 7
       EXCEPT SELECT ${key}, runs FROM run_list_counts)`);
    expect(rows).toEqual([]);
  }

  it('counts single and multi-row inserts, from any search path', async () => {
    const agent = randomUUID();
    await insertRuns(agent, 1);
    await insertRuns(agent, 500);
    const outsider = new Client({ connectionString: infra.databaseUrl }); // search path: public
    await outsider.connect();
    try {
      await insertRuns(agent, 7, outsider);
    } finally {
      await outsider.end();
    }
    await expectCountsExact();
  });

  it('moves a run between counts when a counted column changes, and ignores other updates', async () => {
    const agent = randomUUID();
    const [id] = await insertRuns(agent, 3);
    const before = await pool.query('SELECT xmin::text AS version, * FROM run_list_counts WHERE agent_id = $1 ORDER BY 2', [agent]);
    await pool.query(`UPDATE runs SET event_count = event_count + 1, last_event_at = now(), summary = 'x' WHERE agent_id = $1`, [agent]);
    const after = await pool.query('SELECT xmin::text AS version, * FROM run_list_counts WHERE agent_id = $1 ORDER BY 2', [agent]);
    expect(after.rows).toEqual(before.rows);

    await pool.query(`UPDATE runs SET status = 'completed', is_finished = true WHERE id = $1`, [id]);
    await pool.query(`UPDATE runs SET user_email = 'Other@x.test', policy_type = NULL WHERE id = $1`, [id]);
    await pool.query(`UPDATE runs SET status = 'paused' WHERE agent_id = $1`, [agent]);
    await expectCountsExact();
  });

  it('drops the counts a delete empties, and keeps the rest exact', async () => {
    const agent = randomUUID();
    const ids = await insertRuns(agent, 40);
    await pool.query('DELETE FROM runs WHERE id = ANY($1)', [ids.slice(0, 5)]);
    await expectCountsExact();
    await pool.query('DELETE FROM runs WHERE agent_id = $1', [agent]);
    expect((await pool.query('SELECT * FROM run_list_counts WHERE agent_id = $1', [agent])).rows).toEqual([]);
    await expectCountsExact();
  });

  it('stays exact under concurrent status changes, inserts and deletes of one agent, without deadlocks', async () => {
    const agent = randomUUID();
    const ids = await insertRuns(agent, 200);
    // Like the recorder: lock the run, then change it in one statement.
    const changeStatus = async (id: string, status: string) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [id]);
        await client.query(`UPDATE runs SET status = $2, is_finished = $2 IN ('completed', 'error', 'stopped') WHERE id = $1`, [id, status]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    };
    await Promise.all(
      Array.from({ length: 6 }, async (_, worker) => {
        for (let i = 0; i < 40; i++) {
          await changeStatus(ids[(worker * 40 + i * 7) % ids.length], STATUSES[(worker + i) % STATUSES.length]);
          if (i % 10 === 0) await pool.query('DELETE FROM runs WHERE id = $1', [ids[(worker * 13 + i) % ids.length]]);
          if (i % 8 === 0) await insertRuns(agent, 3);
        }
      }),
    );
    await expectCountsExact();
  });

  it('is emptied by a TRUNCATE of runs', async () => {
    await insertRuns(randomUUID(), 3);
    await pool.query('TRUNCATE runs CASCADE');
    expect((await pool.query('SELECT count(*)::int AS n FROM run_list_counts')).rows).toEqual([{ n: 0 }]);
  });

  it('is filled from the runs already there when the migration runs, and removed by its down', async () => {
    await insertRuns(randomUUID(), 50);
    await undoMigrationsThrough(dataSource, 'RunListIndexesAndCounts1763920000000');
    const { rows } = await pool.query(`SELECT to_regclass('run_list_counts') AS counts, to_regclass('runs_agent_started_idx') AS old_index`);
    expect(rows).toEqual([{ counts: null, old_index: 'runs_agent_started_idx' }]);
    await insertRuns(randomUUID(), 20);
    await dataSource.runMigrations({ transaction: 'each' });
    await expectCountsExact();
  });
});
