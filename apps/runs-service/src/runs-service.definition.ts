import { RunsPatterns } from '@aas/contracts';
import { ServiceDefinition } from '@aas/platform';
import { RunsEnv } from './config/runs.env';
import { RUNS_SCHEMA } from './database/runs-schema';

export const RUNS_SERVICE: ServiceDefinition<RunsEnv> = {
  name: 'runs-service',
  stream: 'runs',
  env: RunsEnv,
  schema: RUNS_SCHEMA,
  healthPattern: RunsPatterns.Health,
};
