import { DynamicModule, INestApplication } from '@nestjs/common';
import { ClassConstructor } from 'class-transformer';
import { ServiceEnv } from '../config/common.env';
import { settingsModule } from '../config/settings.module';
import { validateEnv } from '../config/validate-env';
import { SchemaDefinition, serviceDatabaseModule } from '../database/service-database.module';
import { dataSourceOptionsFromEnv } from '../database/data-source-options';
import { migrateSchema } from '../database/migrate';
import { ServiceHealthModule } from '../health/service-health.module';
import { loggingModule } from '../logging/logging.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RedisModule } from '../redis/redis.module';
import { startServiceApp } from './service-app';

/** What makes a back-end app: its name, transport stream, settings, schema and health message. */
export interface ServiceDefinition<E extends ServiceEnv> {
  /** The app's name in logs (`agents-service`). */
  name: string;
  /** Its request stream and consumer group (`agents`): the first segment of its message patterns. */
  stream: string;
  env: ClassConstructor<E>;
  schema: SchemaDefinition;
  healthPattern: string;
}

/** The modules every back-end app starts with: validated settings, logging, its schema, Redis, health, metrics. */
export function serviceFoundation<E extends ServiceEnv>(
  definition: ServiceDefinition<E>,
  overrides: Record<string, string>,
): (DynamicModule | Promise<DynamicModule>)[] {
  return [
    settingsModule(definition.env, overrides),
    loggingModule(definition.name),
    serviceDatabaseModule(definition.schema),
    { module: RedisModule },
    ServiceHealthModule.forService(definition.healthPattern),
    MetricsModule.forApp(definition.name),
  ];
}

export interface ServiceEntryPoints {
  start(overrides?: Record<string, string>): Promise<INestApplication>;
  migrate(overrides?: Record<string, string>): Promise<string[]>;
}

/** `start` runs the app; `migrate` applies its schema's migrations. Overrides win over the environment (tests). */
export function serviceEntryPoints<E extends ServiceEnv>(
  definition: ServiceDefinition<E>,
  rootModule: (overrides: Record<string, string>) => DynamicModule,
): ServiceEntryPoints {
  return {
    start: (overrides = {}) => startServiceApp(rootModule(overrides), definition.stream),
    migrate: (overrides = {}) => {
      const env = validateEnv(definition.env, { ...process.env, ...overrides });
      // No timeouts: a migration may wait for another replica's advisory lock, or build an index for minutes.
      return migrateSchema({ ...dataSourceOptionsFromEnv(definition.schema, env), timeouts: undefined });
    },
  };
}
