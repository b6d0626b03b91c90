import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QueueNames } from '@aas/contracts';
import { RunsEnv } from '../config/runs.env';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { RunListModule } from '../run-list/run-list.module';
import { RunsModule } from '../runs/runs.module';
import { BulkActionLimits } from './bulk-action-limits';
import { BulkActionRunner } from './bulk-action-runner';
import { BulkActionStore } from './bulk-action.store';
import { BULK_ACTION_CHUNK_SIZE, BulkActionsProcessor } from './bulk-actions.processor';
import { BulkActionsHandlers } from './bulk-actions.handlers';
import { BULK_ACTION_LIMITS, BulkActionsService } from './bulk-actions.service';

/** Bulk actions (docs/bulk-actions.md): cancel or replay many runs as one tracked, abortable job. */
@Module({
  imports: [LifecycleModule, RunListModule, RunsModule, BullModule.registerQueue({ name: QueueNames.RunsBulkActions })],
  controllers: [BulkActionsHandlers],
  providers: [
    BulkActionsService,
    BulkActionStore,
    BulkActionRunner,
    BulkActionsProcessor,
    {
      provide: BULK_ACTION_LIMITS,
      inject: [ConfigService],
      useFactory: (config: ConfigService<RunsEnv, true>): BulkActionLimits => ({
        maxRuns: config.get('QUOTA_BULK_ACTION_RUNS', { infer: true }),
        activePerUser: config.get('QUOTA_ACTIVE_BULK_ACTIONS_PER_USER', { infer: true }),
        perHour: config.get('QUOTA_BULK_ACTIONS_PER_HOUR', { infer: true }),
      }),
    },
    {
      provide: BULK_ACTION_CHUNK_SIZE,
      inject: [ConfigService],
      useFactory: (config: ConfigService<RunsEnv, true>) => config.get('BULK_ACTION_CHUNK_SIZE', { infer: true }),
    },
  ],
})
export class BulkActionsModule {}
