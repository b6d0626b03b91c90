import { DataSource, EntityManager } from 'typeorm';
import { IsolatedInfra, isolatedInfra } from '../../../../test/support/isolated-infra';
import { afterCommit } from './after-commit';
import { dataSourceOptions } from './data-source-options';
import { ensureDatabase } from './migrate';
import { PostgresTransactions, asTransaction, transactionOn } from './postgres-transactions';

const infra: IsolatedInfra = isolatedInfra();

describe('afterCommit on PostgreSQL', () => {
  let dataSource: DataSource;
  let observer: DataSource;
  const open = async () =>
    new DataSource(dataSourceOptions({ url: infra.databaseUrl, schema: 'public', entities: [], migrations: [], poolSize: 2 })).initialize();
  const rows = async (): Promise<string[]> => (await observer.query('SELECT label FROM after_commit_probe ORDER BY label')).map((r: { label: string }) => r.label);

  beforeAll(async () => {
    await ensureDatabase(infra.databaseUrl);
    [dataSource, observer] = [await open(), await open()];
    await dataSource.query('CREATE TABLE after_commit_probe (label text PRIMARY KEY)');
  });
  afterAll(async () => {
    await Promise.all([dataSource?.destroy(), observer?.destroy()]);
    await infra.dispose();
  });

  it('runs an effect only once another connection can read what the transaction wrote', async () => {
    let seen: string[] = [];
    await new PostgresTransactions(dataSource).run(async (tx) => {
      await (tx as unknown as EntityManager).query(`INSERT INTO after_commit_probe VALUES ('committed')`);
      afterCommit(tx, async () => void (seen = await rows()));
    });
    expect(seen).toEqual(['committed']);
  });

  it('never runs the effects of a transaction that rolled back, nor keeps its rows', async () => {
    let ran = false;
    const failing = transactionOn(dataSource, async (manager) => {
      await manager.query(`INSERT INTO after_commit_probe VALUES ('rolled back')`);
      afterCommit(asTransaction(manager), () => void (ran = true));
      throw new Error('refused');
    });
    await expect(failing).rejects.toThrow('refused');
    expect([ran, await rows()]).toEqual([false, ['committed']]);
  });
});
