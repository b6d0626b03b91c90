import { AgentsPatterns } from '@aas/contracts';
import { ServiceDefinition } from '@aas/platform';
import { AgentsEnv } from './config/agents.env';
import { AGENTS_SCHEMA } from './database/agents-schema';

export const AGENTS_SERVICE: ServiceDefinition<AgentsEnv> = {
  name: 'agents-service',
  stream: 'agents',
  env: AgentsEnv,
  schema: AGENTS_SCHEMA,
  healthPattern: AgentsPatterns.Health,
};
