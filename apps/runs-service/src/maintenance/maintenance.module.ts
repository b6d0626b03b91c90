import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { LifecycleModule } from '../lifecycle/lifecycle.module';
import { RetentionModule } from '../retention/retention.module';
import { RunListModule } from '../run-list/run-list.module';
import { AgentDeletedConsumer } from './agent-deleted.consumer';
import { MaintenanceStore } from './maintenance.store';
import { PostgresMaintenanceStore } from './postgres-maintenance.store';
import { RunsMaintenanceProcessor } from './runs-maintenance.processor';

/** runs-service's upkeep: periodic purges, and the runs of deleted agents. */
@Module({
  imports: [
    LifecycleModule,
    RunListModule,
    RetentionModule,
    // runs-maintenance comes with RetentionModule, which queues on it too.
    BullModule.registerQueue({ name: QueueNames.RunsEvents }),
  ],
  providers: [AgentDeletedConsumer, RunsMaintenanceProcessor, { provide: MaintenanceStore, useClass: PostgresMaintenanceStore }],
})
export class MaintenanceModule {}
