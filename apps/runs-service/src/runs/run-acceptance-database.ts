import { DynamicModule } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { dataSourceOptions, dataSourceOptionsFromEnv } from '@aas/platform';
import { RunsEnv } from '../config/runs.env';
import { RUNS_SCHEMA } from '../database/runs-schema';

/** The data source scheduled runs are accepted through (`@InjectDataSource(RUN_ACCEPTANCE)`). */
export const RUN_ACCEPTANCE = 'run-acceptance';

/** Two batches (one per scheduler replica) are usually due at the same instant. */
const RUN_ACCEPTANCE_POOL_SIZE = 2;

/**
 * Connections of their own for accepting scheduled runs. Executing runs can
 * keep every connection of the main pool busy with a queue of waiting
 * transactions behind them (RUN_WORKER_CONCURRENCY above DATABASE_POOL_SIZE,
 * each run a string of short transactions); the runs of a fire must not wait
 * at the end of that queue.
 */
export function runAcceptanceDatabaseModule(): DynamicModule {
  return TypeOrmModule.forRootAsync({
    name: RUN_ACCEPTANCE,
    inject: [ConfigService],
    useFactory: (config: ConfigService<RunsEnv, true>) =>
      dataSourceOptions({
        ...dataSourceOptionsFromEnv(RUNS_SCHEMA, {
          DATABASE_URL: config.get('DATABASE_URL', { infer: true }),
          DATABASE_POOL_SIZE: RUN_ACCEPTANCE_POOL_SIZE,
        }),
        applicationName: `${RUNS_SCHEMA.schema}-acceptance`,
      }),
  });
}
