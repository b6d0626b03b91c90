import type { DataSourceOptions, MixedList, EntitySchema } from 'typeorm';
import type { NestedConnectionPolicy } from './nested-connection-guard';

/** How long a connection, a statement and an idle transaction may take (ms; 0 or absent: no limit). */
export interface DatabaseTimeouts {
  connectMs?: number;
  statementMs?: number;
  idleInTransactionMs?: number;
}

export interface ServiceDatabaseOptions {
  url: string;
  /** The PostgreSQL schema this service owns; no other service reads it. */
  schema: string;
  entities: MixedList<Function | string | EntitySchema>;
  migrations: MixedList<Function | string>;
  poolSize?: number;
  applicationName?: string;
  timeouts?: DatabaseTimeouts;
}

export function dataSourceOptions(options: ServiceDatabaseOptions): DataSourceOptions {
  const timeouts = options.timeouts ?? {};
  return {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsRun: false,
    // Schemas change only through migrations.
    synchronize: false,
    extra: {
      max: options.poolSize ?? 10,
      application_name: options.applicationName ?? options.schema,
      options: `-c search_path=${options.schema}`,
      // pg-pool and the server: a saturated pool or a stuck statement fails its caller instead of waiting for ever.
      ...(timeouts.connectMs ? { connectionTimeoutMillis: timeouts.connectMs } : {}),
      ...(timeouts.statementMs ? { statement_timeout: timeouts.statementMs } : {}),
      ...(timeouts.idleInTransactionMs ? { idle_in_transaction_session_timeout: timeouts.idleInTransactionMs } : {}),
    },
  };
}

/** The database settings every app with a schema validates (ServiceEnv). */
export interface DatabaseEnv {
  DATABASE_URL: string;
  DATABASE_POOL_SIZE: number;
  DATABASE_CONNECT_TIMEOUT_MS: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: number;
  DATABASE_NESTED_CONNECTIONS: NestedConnectionPolicy;
}

/** The options of a schema for the given validated settings. */
export function dataSourceOptionsFromEnv(
  definition: Pick<ServiceDatabaseOptions, 'schema' | 'entities' | 'migrations'>,
  env: Omit<DatabaseEnv, 'DATABASE_NESTED_CONNECTIONS'>,
): ServiceDatabaseOptions {
  return {
    ...definition,
    url: env.DATABASE_URL,
    poolSize: env.DATABASE_POOL_SIZE,
    timeouts: {
      connectMs: env.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: env.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    },
  };
}
