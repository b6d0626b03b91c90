import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { ExecutionModule } from '../execution/execution.module';
import { AgentDeletedConsumer } from './agent-deleted.consumer';
import { runAcceptanceDatabaseModule } from './run-acceptance-database';
import { RunsHandlers } from './runs.handlers';
import { RunsService } from './runs.service';
import { ScheduledRunsService } from './scheduled-runs.service';

@Module({
  imports: [ExecutionModule, runAcceptanceDatabaseModule(), BullModule.registerQueue({ name: QueueNames.RunsEvents })],
  controllers: [RunsHandlers],
  providers: [RunsService, ScheduledRunsService, AgentDeletedConsumer],
})
export class RunsModule {}
