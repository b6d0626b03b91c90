import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ServiceDatabaseOptions, dataSourceOptions } from './data-source-options';

const DUPLICATE_DATABASE = '42P04';
const UNIQUE_VIOLATION = '23505';

/** Creates the database named by `url` when it does not exist (safe when several processes race). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((error: { code?: string }) => {
        if (error.code !== DUPLICATE_DATABASE && error.code !== UNIQUE_VIOLATION) throw error;
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * Applies a service's pending migrations to its own schema. An advisory lock
 * makes concurrent runs (several replicas, a k8s Job) wait for each other.
 */
export async function migrateSchema(options: ServiceDatabaseOptions): Promise<string[]> {
  await ensureDatabase(options.url);
  // Two connections: one holds the advisory lock, the other runs the migrations.
  const dataSource = new DataSource(dataSourceOptions({ ...options, poolSize: 2 }));
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${options.schema}`]);
    await runner.query(`CREATE SCHEMA IF NOT EXISTS "${options.schema}"`);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${options.schema}`]).catch(() => undefined);
    await runner.release();
    await dataSource.destroy();
  }
}
