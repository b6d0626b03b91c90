import { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, DataSourceOptions } from 'typeorm';
import { ServiceEnv } from '../config/common.env';
import { DatabaseEnv, ServiceDatabaseOptions, dataSourceOptions, dataSourceOptionsFromEnv } from './data-source-options';
import { NestedConnectionPolicy, guardNestedConnections } from './nested-connection-guard';

export type SchemaDefinition = Pick<ServiceDatabaseOptions, 'schema' | 'entities' | 'migrations'>;

/** TypeORM's options, and what the data source factory needs besides them. */
type ServiceDataSourceOptions = DataSourceOptions & { nestedConnections: NestedConnectionPolicy };

/**
 * TypeORM on the service's own schema, from DATABASE_URL and the DATABASE_* settings, its pool
 * guarded against transactions waiting for a second connection. Migrations are applied by `migrate`, never here.
 * `name` and `adjust` serve a second data source on the same schema (runs-service's acceptance pool).
 */
export function serviceDatabaseModule<Env extends ServiceEnv = ServiceEnv>(
  definition: SchemaDefinition,
  second?: { name: string; adjust: (options: ServiceDatabaseOptions, config: ConfigService<Env, true>) => ServiceDatabaseOptions },
): DynamicModule {
  return TypeOrmModule.forRootAsync({
    name: second?.name,
    inject: [ConfigService],
    useFactory: (config: ConfigService<Env, true>): ServiceDataSourceOptions => {
      const env = databaseEnv(config as unknown as ConfigService<ServiceEnv, true>);
      const options = dataSourceOptionsFromEnv(definition, env);
      return {
        ...dataSourceOptions(second ? second.adjust(options, config) : options),
        nestedConnections: env.DATABASE_NESTED_CONNECTIONS,
      };
    },
    dataSourceFactory: async (options) => {
      const { nestedConnections, ...typeorm } = options as ServiceDataSourceOptions;
      return guardNestedConnections(await new DataSource(typeorm as DataSourceOptions).initialize(), nestedConnections);
    },
  });
}

function databaseEnv(config: ConfigService<ServiceEnv, true>): DatabaseEnv {
  return {
    DATABASE_URL: config.get('DATABASE_URL', { infer: true }),
    DATABASE_POOL_SIZE: config.get('DATABASE_POOL_SIZE', { infer: true }),
    DATABASE_CONNECT_TIMEOUT_MS: config.get('DATABASE_CONNECT_TIMEOUT_MS', { infer: true }),
    DATABASE_STATEMENT_TIMEOUT_MS: config.get('DATABASE_STATEMENT_TIMEOUT_MS', { infer: true }),
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: config.get('DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS', { infer: true }),
    DATABASE_NESTED_CONNECTIONS: config.get('DATABASE_NESTED_CONNECTIONS', { infer: true }),
  };
}
