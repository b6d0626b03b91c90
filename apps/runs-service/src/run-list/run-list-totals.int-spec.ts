import { ListRunsMessage } from '@aas/contracts';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { undoMigrationsThrough } from '../../../../test/support/migrations';
import { RunsTestDatabase, openRunsTestDatabase } from '../database/runs-test-database';
import { PostgresRunListStore } from './postgres-run-list.store';

const infra = isolatedInfra();
const USER = randomUUID();

/** PostgresRunListStore's remembered totals against the real schema: used exactly while the agent's runs are unchanged. */
describe('PostgresRunListStore remembered totals', () => {
  let dataSource: DataSource;
  let pool: Pool;
  let totals: PostgresRunListStore;
  let runNumber = 0;

  let database: RunsTestDatabase;

  beforeAll(async () => {
    database = await openRunsTestDatabase(infra.databaseUrl);
    ({ dataSource, pool } = database);
    totals = new PostgresRunListStore(dataSource);
  });
  afterAll(async () => {
    await database?.close();
    await infra.dispose();
  });

  async function insertRuns(agentId: string, goals: string[], status = 'in_progress'): Promise<string[]> {
    const first = runNumber + 1;
    runNumber += goals.length;
    const { rows } = await pool.query(
      `INSERT INTO runs (id, agent_id, user_id, run_number, run_mode, run_kind, trigger_kind, status, goal, started_at, last_event_at)
       SELECT gen_random_uuid(), $1, $2, $3 + g.n - 1, 'run', 'api', 'api', $5, g.goal, now(), now()
         FROM unnest($4::text[]) WITH ORDINALITY AS g(goal, n)
       RETURNING id`,
      [agentId, USER, first, goals, status],
    );
    return rows.map((row) => row.id);
  }

  /** The list's total for filter_goal (and filter_status): one the runs have to be counted for. */
  function goalTotal(agentId: string, goal: string, status?: string): Promise<number> {
    const message = { agent_id: agentId, user_id: USER, filter_goal: goal, filter_status: status } as ListRunsMessage;
    return totals.count(message);
  }

  /** Overwrites the agent's remembered totals, so that an answer of `marker` can only have come from memory. */
  async function markRemembered(agentId: string, marker: number): Promise<number> {
    const { rowCount } = await pool.query('UPDATE run_list_totals SET total = $2 WHERE agent_id = $1', [agentId, marker]);
    return rowCount ?? 0;
  }

  it('counts once, then answers a repeat from memory until a run is inserted, changed or deleted', async () => {
    const agent = randomUUID();
    const [first] = await insertRuns(agent, ['a backup', 'more backups', 'deploys']);
    expect(await goalTotal(agent, 'BACKUP')).toBe(2);
    expect(await markRemembered(agent, 999)).toBe(1);
    expect(await goalTotal(agent, 'BACKUP')).toBe(999);

    await insertRuns(agent, ['backup 3']);
    expect(await goalTotal(agent, 'BACKUP')).toBe(3);

    expect(await goalTotal(agent, 'backup', 'completed')).toBe(0);
    await markRemembered(agent, 999);
    await pool.query(`UPDATE runs SET status = 'completed', is_finished = true WHERE id = $1`, [first]);
    expect(await goalTotal(agent, 'backup', 'completed')).toBe(1);

    await markRemembered(agent, 999);
    await pool.query('DELETE FROM runs WHERE id = $1', [first]);
    expect(await goalTotal(agent, 'BACKUP')).toBe(2);
  });

  it('keeps using a total through the per-event updates of runs and through changes to other agents', async () => {
    const agent = randomUUID();
    const other = randomUUID();
    await insertRuns(agent, ['backup']);
    await insertRuns(other, ['backup']);
    expect(await goalTotal(agent, 'backup')).toBe(1);
    await markRemembered(agent, 999);

    await pool.query(`UPDATE runs SET event_count = event_count + 1, last_event_at = now(), summary = 's' WHERE agent_id = $1`, [agent]);
    await insertRuns(other, ['backup']);
    expect(await goalTotal(agent, 'backup')).toBe(999);
  });

  it('remembers one total per filter, and nothing for an agent that never had runs', async () => {
    const agent = randomUUID();
    await insertRuns(agent, ['backup', 'deploy']);
    expect([await goalTotal(agent, 'backup'), await goalTotal(agent, 'deploy'), await goalTotal(agent, 'zzz')]).toEqual([1, 1, 0]);
    expect(await markRemembered(agent, 999)).toBe(3);

    const empty = randomUUID();
    expect(await goalTotal(empty, 'backup')).toBe(0);
    expect((await pool.query('SELECT count(*)::int AS n FROM run_list_totals WHERE agent_id = $1', [empty])).rows).toEqual([{ n: 0 }]);
  });

  it('never answers a total the runs do not have while runs are inserted and changed concurrently', async () => {
    const agent = randomUUID();
    const ids = await insertRuns(agent, Array.from({ length: 60 }, (_, i) => `goal ${i} backup`));
    const changes = Array.from({ length: 4 }, async (_, worker) => {
      for (let i = 0; i < 15; i++) {
        await insertRuns(agent, ['another backup', 'a deploy']);
        await pool.query(`UPDATE runs SET status = 'completed', is_finished = true WHERE id = $1`, [ids[worker * 15 + i]]);
      }
    });
    const answers: { total: number; lowest: number; highest: number }[] = [];
    const readers = Array.from({ length: 3 }, async () => {
      for (let i = 0; i < 30; i++) {
        const count = () => pool.query(`SELECT count(*)::int AS n FROM runs WHERE agent_id = $1 AND goal ILIKE '%backup%'`, [agent]);
        const lowest = (await count()).rows[0].n;
        const total = await goalTotal(agent, 'backup');
        answers.push({ total, lowest, highest: (await count()).rows[0].n });
      }
    });
    await Promise.all([...changes, ...readers]);
    // Runs only come: a true total lies between the counts taken just before and just after it.
    for (const answer of answers) {
      expect(answer.total).toBeGreaterThanOrEqual(answer.lowest);
      expect(answer.total).toBeLessThanOrEqual(answer.highest);
    }
    expect(await goalTotal(agent, 'backup')).toBe(60 + 4 * 15);
    expect(await goalTotal(agent, 'backup', 'completed')).toBe(60);
  });

  it('purges totals counted over an hour ago and totals of an earlier generation, and keeps the rest', async () => {
    const [aged, changed, current] = [randomUUID(), randomUUID(), randomUUID()];
    for (const agent of [aged, changed, current]) {
      await insertRuns(agent, ['backup']);
      await goalTotal(agent, 'backup');
    }
    await pool.query(`UPDATE run_list_totals SET counted_at = now() - interval '61 minutes' WHERE agent_id = $1`, [aged]);
    await insertRuns(changed, ['backup']);

    await totals.purgeStaleTotals();
    const { rows } = await pool.query('SELECT agent_id FROM run_list_totals WHERE agent_id = ANY($1)', [[aged, changed, current]]);
    expect(rows).toEqual([{ agent_id: current }]);
  });

  it('purges in bounded batches, and stops between batches when told to', async () => {
    const agent = randomUUID();
    await insertRuns(agent, ['backup']);
    for (let i = 0; i < 25; i++) await goalTotal(agent, `b${'a'.repeat(i)}`);
    await insertRuns(agent, ['backup']); // all 25 are now of an earlier generation
    const left = async () => (await pool.query('SELECT count(*)::int AS n FROM run_list_totals WHERE agent_id = $1', [agent])).rows[0].n;

    expect(await totals.purgeStaleTotals(() => true, 10)).toBe(10);
    expect(await left()).toBe(15);
    expect(await totals.purgeStaleTotals(() => false, 10)).toBeGreaterThanOrEqual(15);
    expect(await left()).toBe(0);
  });

  it('gives the agents that already have runs a generation when the migration runs, and its down removes both tables', async () => {
    const agent = randomUUID();
    await insertRuns(agent, ['backup']);
    await undoMigrationsThrough(dataSource, 'RunListTotals1763930000000');
    const gone = await pool.query(`SELECT to_regclass('run_list_totals') AS totals, to_regclass('run_list_generations') AS generations`);
    expect(gone.rows).toEqual([{ totals: null, generations: null }]);
    await dataSource.runMigrations({ transaction: 'each' });
    expect((await pool.query('SELECT generation FROM run_list_generations WHERE agent_id = $1', [agent])).rows).toEqual([
      { generation: '1' },
    ]);
    expect(await goalTotal(agent, 'backup')).toBe(1);
  });
});
