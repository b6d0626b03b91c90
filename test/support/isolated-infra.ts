import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { Client, Pool } from 'pg';

export const PG_ADMIN_URL = process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A database and a Redis key prefix of this test file's own, removed afterwards. */
export interface IsolatedInfra {
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  dispose(): Promise<void>;
}

/**
 * A pg pool on a test database with `schema` first on the search path, for a test to look with.
 * Errors of idle connections are ignored: dispose() drops the database WITH (FORCE), which cuts
 * off connections that pool.end() has not finished closing, and an unheard pool error would fail
 * whatever test is running.
 */
export function observerPool(databaseUrl: string, schema: string, max = 4): Pool {
  const pool = new Pool({ connectionString: databaseUrl, options: `-c search_path=${schema}`, max });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * The settings every app needs to run in-process against `infra`: its database, Redis prefix, no fixed ports, quiet logs.
 * Pools of 2, and a transaction that asks its own pool for a second connection fails its query: such a path
 * deadlocks a pool in production once enough of them run at once, and here it fails the first test that takes it.
 */
export function appEnv(infra: IsolatedInfra): Record<string, string> {
  return {
    DATABASE_POOL_SIZE: '2',
    RUN_ACCEPTANCE_POOL_SIZE: '2',
    DATABASE_NESTED_CONNECTIONS: 'refuse',
    DATABASE_URL: infra.databaseUrl,
    REDIS_URL: infra.redisUrl,
    REDIS_PREFIX: infra.redisPrefix,
    HEALTH_PORT: '0',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
  };
}

export function isolatedInfra(): IsolatedInfra {
  const id = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const database = `aas_test_${id}`;
  const admin = new URL(PG_ADMIN_URL);
  const databaseUrl = new URL(PG_ADMIN_URL);
  databaseUrl.pathname = `/${database}`;
  const redisPrefix = `aas-test-${id}`;
  return {
    databaseUrl: databaseUrl.toString(),
    redisUrl: TEST_REDIS_URL,
    redisPrefix,
    async dispose() {
      const pg = new Client({ connectionString: admin.toString() });
      await pg.connect();
      await pg.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      await pg.end();
      await deleteKeysWithPrefix(TEST_REDIS_URL, redisPrefix);
    },
  };
}

async function deleteKeysWithPrefix(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
