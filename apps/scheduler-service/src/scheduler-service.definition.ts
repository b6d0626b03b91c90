import { SchedulerPatterns } from '@aas/contracts';
import { ServiceDefinition } from '@aas/platform';
import { SchedulerEnv } from './config/scheduler.env';
import { SCHEDULER_SCHEMA } from './database/scheduler-schema';

export const SCHEDULER_SERVICE: ServiceDefinition<SchedulerEnv> = {
  name: 'scheduler-service',
  stream: 'scheduler',
  env: SchedulerEnv,
  schema: SCHEDULER_SCHEMA,
  healthPattern: SchedulerPatterns.Health,
};
