import { Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { IsolatedInfra, isolatedInfra } from '../../../../test/support/isolated-infra';
import { ensureDatabase } from './migrate';
import { dataSourceOptions } from './data-source-options';
import { NestedConnectionError, NestedConnectionPolicy, guardNestedConnections } from './nested-connection-guard';

const infra: IsolatedInfra = isolatedInfra();

async function open(policy: NestedConnectionPolicy, poolSize: number, connectMs?: number): Promise<DataSource> {
  const options = dataSourceOptions({
    url: infra.databaseUrl,
    schema: 'public',
    entities: [],
    migrations: [],
    poolSize,
    timeouts: { connectMs },
  });
  return guardNestedConnections(await new DataSource(options).initialize(), policy);
}

describe('guardNestedConnections (real PostgreSQL)', () => {
  const opened: DataSource[] = [];
  const dataSource = async (policy: NestedConnectionPolicy, poolSize = 2, connectMs?: number) => {
    const ds = await open(policy, poolSize, connectMs);
    opened.push(ds);
    return ds;
  };

  beforeAll(async () => {
    // The `log` cases log on purpose.
    Logger.overrideLogger(false);
    await ensureDatabase(infra.databaseUrl);
  });
  afterAll(async () => {
    await Promise.all(opened.map((ds) => ds.destroy()));
    await infra.dispose();
  });

  it('refuses a query that asks the pool for a second connection inside a transaction, and keeps the transaction usable', async () => {
    const ds = await dataSource('refuse');
    const result = await ds.transaction(async (tx) => {
      await expect(ds.query('SELECT 1')).rejects.toBeInstanceOf(NestedConnectionError);
      await expect(ds.manager.query('SELECT 1')).rejects.toBeInstanceOf(NestedConnectionError);
      return tx.query('SELECT 2 AS two');
    });
    expect(result).toEqual([{ two: 2 }]);
  });

  it('refuses the pool-level query (prepared statements) and the nested transaction the same way', async () => {
    const ds = await dataSource('refuse');
    const pool = (ds.driver as unknown as { master: { query: (text: string) => Promise<unknown> } }).master;
    await ds.transaction(async () => {
      await expect(pool.query('SELECT 1')).rejects.toBeInstanceOf(NestedConnectionError);
      await expect(ds.transaction((inner) => inner.query('SELECT 1'))).rejects.toBeInstanceOf(NestedConnectionError);
    });
  });

  it('lets queries outside transactions, and work a transaction left running after it ended, connect', async () => {
    const ds = await dataSource('refuse');
    let later: Promise<unknown> = Promise.resolve();
    await ds.transaction(async (tx) => {
      await tx.query('SELECT 1');
      later = new Promise((resolve) => setTimeout(resolve, 20)).then(() => ds.query('SELECT 3 AS three'));
    });
    await expect(later).resolves.toEqual([{ three: 3 }]);
    await expect(ds.query('SELECT 4 AS four')).resolves.toEqual([{ four: 4 }]);
  });

  it('lets the query wait under `log` and, with a connect timeout, a pool exhausted by such transactions fails them instead of hanging', async () => {
    const ds = await dataSource('log', 1, 300);
    const started = Date.now();
    await expect(ds.transaction(() => ds.query('SELECT 1'))).rejects.toThrow(/timeout exceeded when trying to connect/);
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(ds.query('SELECT 5 AS five')).resolves.toEqual([{ five: 5 }]);
  });

  it('under `log`, a second connection inside a transaction is given when the pool has one', async () => {
    const ds = await dataSource('log', 2);
    await expect(ds.transaction(() => ds.query('SELECT 6 AS six'))).resolves.toEqual([{ six: 6 }]);
  });
});
