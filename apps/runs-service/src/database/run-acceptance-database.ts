import { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { serviceDatabaseModule } from '@aas/platform';
import { RunsEnv } from '../config/runs.env';
import { RUNS_SCHEMA } from './runs-schema';

/** The data source runs are accepted through (`@InjectDataSource(RUN_ACCEPTANCE)`). */
export const RUN_ACCEPTANCE = 'run-acceptance';

/**
 * Connections of their own for accepting runs (RUN_ACCEPTANCE_POOL_SIZE).
 * Executing runs can keep every connection of the main pool busy with a queue
 * of waiting transactions behind them (RUN_WORKER_CONCURRENCY above
 * DATABASE_POOL_SIZE, each run a string of short transactions); a run start
 * (an API call, a schedule's fire, a trigger) must not wait at the end of that queue.
 */
export function runAcceptanceDatabaseModule(): DynamicModule {
  return serviceDatabaseModule<RunsEnv>(RUNS_SCHEMA, {
    name: RUN_ACCEPTANCE,
    adjust: (options, config: ConfigService<RunsEnv, true>) => ({
      ...options,
      poolSize: config.get('RUN_ACCEPTANCE_POOL_SIZE', { infer: true }),
      applicationName: `${RUNS_SCHEMA.schema}-acceptance`,
    }),
  });
}
