import type { DataSourceOptions, MixedList, EntitySchema } from 'typeorm';

export interface ServiceDatabaseOptions {
  url: string;
  /** The PostgreSQL schema this service owns; no other service reads it. */
  schema: string;
  entities: MixedList<Function | string | EntitySchema>;
  migrations: MixedList<Function | string>;
  poolSize?: number;
  applicationName?: string;
}

export function dataSourceOptions(options: ServiceDatabaseOptions): DataSourceOptions {
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
    },
  };
}

/** The options of a schema for the given validated settings. */
export function dataSourceOptionsFromEnv(
  definition: Pick<ServiceDatabaseOptions, 'schema' | 'entities' | 'migrations'>,
  env: { DATABASE_URL: string; DATABASE_POOL_SIZE: number },
): ServiceDatabaseOptions {
  return { ...definition, url: env.DATABASE_URL, poolSize: env.DATABASE_POOL_SIZE };
}
