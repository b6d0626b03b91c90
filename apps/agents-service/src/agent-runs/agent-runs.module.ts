import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { StoresModule } from '../database/stores.module';
import { AgentContextHandlers } from './agent-context.handlers';
import { RunProgressConsumer } from './run-progress.consumer';

/** What agents-service does for runs: answers their agent context and follows their progress. */
@Module({
  imports: [StoresModule, BullModule.registerQueue({ name: QueueNames.AgentsEvents })],
  controllers: [AgentContextHandlers],
  providers: [RunProgressConsumer],
})
export class AgentRunsModule {}
