import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { AcceptanceModule } from '../acceptance/acceptance.module';
import { AdmissionModule } from '../admission/admission.module';
import { ExecutionModule } from '../execution/execution.module';
import { AgentDeletedConsumer } from './agent-deleted.consumer';
import { IdempotencyKeyPurge } from './idempotency-key-purge';
import { RunListTotals } from './run-list-totals';
import { RunsMaintenanceProcessor } from './runs-maintenance.processor';
import { RunsHandlers } from './runs.handlers';
import { RunsService } from './runs.service';

@Module({
  imports: [
    ExecutionModule,
    AcceptanceModule,
    AdmissionModule,
    BullModule.registerQueue({ name: QueueNames.RunsEvents }, { name: QueueNames.RunsMaintenance }),
  ],
  controllers: [RunsHandlers],
  providers: [
    RunsService,
    AgentDeletedConsumer,
    IdempotencyKeyPurge,
    RunListTotals,
    RunsMaintenanceProcessor,
  ],
})
export class RunsModule {}
