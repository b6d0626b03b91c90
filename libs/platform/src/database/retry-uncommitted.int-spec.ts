import { DataSource } from 'typeorm';
import { IsolatedInfra, isolatedInfra } from '../../../../test/support/isolated-infra';
import { dataSourceOptions } from './data-source-options';
import { ensureDatabase } from './migrate';
import { transactionOn } from './postgres-transactions';
import { retryUncommitted } from './retry-uncommitted';

const infra: IsolatedInfra = isolatedInfra();
const FAST = { attempts: 8, firstDelayMs: 50, maxDelayMs: 200 };

describe('retryUncommitted on PostgreSQL', () => {
  let pool: DataSource | undefined;
  let observer: DataSource;
  const open = (poolSize: number, connectMs?: number) =>
    new DataSource(
      dataSourceOptions({ url: infra.databaseUrl, schema: 'public', entities: [], migrations: [], poolSize, timeouts: { connectMs } }),
    ).initialize();
  const labels = async (): Promise<string[]> =>
    (await observer.query('SELECT label FROM retry_probe ORDER BY label')).map((row: { label: string }) => row.label);

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    observer = await open(2);
    await observer.query('CREATE TABLE retry_probe (label text PRIMARY KEY)');
    await observer.query(`CREATE TABLE retry_locks (id int PRIMARY KEY); INSERT INTO retry_locks VALUES (1), (2)`);
  });
  afterAll(async () => {
    await observer?.destroy();
    await infra.dispose();
  });
  afterEach(async () => {
    await pool?.destroy();
    pool = undefined;
    await observer.query('DELETE FROM retry_probe');
  });

  it('waits out a pool that stays saturated past the connect timeout, and writes once', async () => {
    const only = (pool = await open(1, 150));
    const release = holdTheOnlyConnection(only, 600);
    const counts = { attempts: 0, ran: 0 };
    const insert = retryUncommitted(() => {
      counts.attempts++;
      return transactionOn(only, async (manager) => void (counts.ran++, await manager.query(`INSERT INTO retry_probe VALUES ('after the wait')`)));
    }, FAST);
    await Promise.all([release, insert]);
    expect(await labels()).toEqual(['after the wait']);
    // The first attempts timed out waiting for the connection, before any statement; one ran.
    expect(counts.attempts).toBeGreaterThan(1);
    expect(counts.ran).toBe(1);
  });

  it('runs the loser of a deadlock again, so both transactions commit once each', async () => {
    const four = (pool = await open(4));
    const both = await Promise.all([lockInOrder(four, [1, 2], 'first'), lockInOrder(four, [2, 1], 'second')]);
    expect(await labels()).toEqual(['first', 'second']);
    expect(both.reduce((sum, tries) => sum + tries.count, 0)).toBeGreaterThanOrEqual(3);
  });

  it('throws a failure that may have written, or that retrying cannot fix, on the first attempt', async () => {
    const two = (pool = await open(2));
    await observer.query(`INSERT INTO retry_probe VALUES ('taken')`);
    let attempts = 0;
    const duplicate = retryUncommitted(
      () => transactionOn(two, async (manager) => void (attempts++, await manager.query(`INSERT INTO retry_probe VALUES ('taken')`))),
      FAST,
    );
    await expect(duplicate).rejects.toThrow(/duplicate key/);
    expect(attempts).toBe(1);
  });
});

/** Takes the pool's only connection in a transaction and gives it back after `ms`. */
async function holdTheOnlyConnection(pool: DataSource, ms: number): Promise<void> {
  await transactionOn(pool, async (manager) => void (await manager.query('SELECT pg_sleep($1)', [ms / 1000])));
}

/** Locks the rows in the given order, pausing between them so that two of these cross; inserts `label`. */
async function lockInOrder(pool: DataSource, ids: number[], label: string): Promise<{ count: number }> {
  const tries = { count: 0 };
  await retryUncommitted(
    () =>
      transactionOn(pool, async (manager) => {
        tries.count++;
        await manager.query('SELECT id FROM retry_locks WHERE id = $1 FOR UPDATE', [ids[0]]);
        await manager.query('SELECT pg_sleep(0.2)');
        await manager.query('SELECT id FROM retry_locks WHERE id = $1 FOR UPDATE', [ids[1]]);
        await manager.query('INSERT INTO retry_probe VALUES ($1)', [label]);
      }),
    FAST,
  );
  return tries;
}
