import { INestApplication } from '@nestjs/common';
import { dataSourceOptionsFromEnv, migrateSchema, startServiceApp, validateEnv } from '@aas/platform';
import { SchedulerServiceModule } from './scheduler-service.module';
import { SchedulerEnv } from './config/scheduler.env';
import { SCHEDULER_SCHEMA } from './database/scheduler-schema';

export function startSchedulerService(overrides: Record<string, string> = {}): Promise<INestApplication> {
  return startServiceApp(SchedulerServiceModule.forRoot(overrides), 'scheduler');
}

export function migrateSchedulerSchema(overrides: Record<string, string> = {}): Promise<string[]> {
  const env = validateEnv(SchedulerEnv, { ...process.env, ...overrides });
  return migrateSchema(dataSourceOptionsFromEnv(SCHEDULER_SCHEMA, env));
}
