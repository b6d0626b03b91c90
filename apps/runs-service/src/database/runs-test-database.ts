import { dataSourceOptions, ensureDatabase } from '@aas/platform';
import { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { RUNS_SCHEMA } from './runs-schema';

/** For integration tests: the runs schema, migrated, in the database at `databaseUrl`. */
export interface RunsTestDatabase {
  /** TypeORM over the schema, as runs-service has it. */
  dataSource: DataSource;
  /** Plain connections with the schema on their search path, for writing rows the way a test needs. */
  pool: Pool;
  close(): Promise<void>;
}

export async function openRunsTestDatabase(databaseUrl: string): Promise<RunsTestDatabase> {
  await ensureDatabase(databaseUrl);
  const pool = new Pool({ connectionString: databaseUrl, options: '-c search_path=runs', max: 6 });
  // pool.end() does not wait for its connections to close, and dropping the database cuts off what is left.
  pool.on('error', () => undefined);
  await pool.query('CREATE SCHEMA runs');
  const dataSource = new DataSource(dataSourceOptions({ ...RUNS_SCHEMA, url: databaseUrl, poolSize: 4 }));
  await dataSource.initialize();
  await dataSource.runMigrations({ transaction: 'each' });
  return {
    dataSource,
    pool,
    async close() {
      await pool.end();
      await dataSource.destroy();
    },
  };
}
