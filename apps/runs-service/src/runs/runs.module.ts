import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { ExecutionModule } from '../execution/execution.module';
import { AgentDeletedConsumer } from './agent-deleted.consumer';
import { RunsHandlers } from './runs.handlers';
import { RunsService } from './runs.service';

@Module({
  imports: [ExecutionModule, BullModule.registerQueue({ name: QueueNames.RunsEvents })],
  controllers: [RunsHandlers],
  providers: [RunsService, AgentDeletedConsumer],
})
export class RunsModule {}
