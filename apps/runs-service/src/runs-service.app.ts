import { INestApplication } from '@nestjs/common';
import { dataSourceOptionsFromEnv, migrateSchema, startServiceApp, validateEnv } from '@aas/platform';
import { RunsServiceModule } from './runs-service.module';
import { RunsEnv } from './config/runs.env';
import { RUNS_SCHEMA } from './database/runs-schema';

export function startRunsService(overrides: Record<string, string> = {}): Promise<INestApplication> {
  return startServiceApp(RunsServiceModule.forRoot(overrides), 'runs');
}

export function migrateRunsSchema(overrides: Record<string, string> = {}): Promise<string[]> {
  const env = validateEnv(RunsEnv, { ...process.env, ...overrides });
  return migrateSchema(dataSourceOptionsFromEnv(RUNS_SCHEMA, env));
}
