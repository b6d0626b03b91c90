import { INestApplication } from '@nestjs/common';
import { dataSourceOptionsFromEnv, migrateSchema, startServiceApp, validateEnv } from '@aas/platform';
import { AgentsServiceModule } from './agents-service.module';
import { AgentsEnv } from './config/agents.env';
import { AGENTS_SCHEMA } from './database/agents-schema';

export const AGENTS_SERVICE = 'agents';

export function startAgentsService(overrides: Record<string, string> = {}): Promise<INestApplication> {
  return startServiceApp(AgentsServiceModule.forRoot(overrides), AGENTS_SERVICE);
}

export function migrateAgentsSchema(overrides: Record<string, string> = {}): Promise<string[]> {
  const env = validateEnv(AgentsEnv, { ...process.env, ...overrides });
  return migrateSchema(dataSourceOptionsFromEnv(AGENTS_SCHEMA, env));
}
