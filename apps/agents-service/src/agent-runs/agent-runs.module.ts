import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { StoresModule } from '../stores.module';
import { InstructionsModule } from '../instructions/instructions.module';
import { AgentContextHandlers } from './agent-context.handlers';
import { RunProgressConsumer } from './run-progress.consumer';

/** What agents-service does for runs: answers their agent context, follows their progress and stores the instructions they write. */
@Module({
  imports: [StoresModule, InstructionsModule, BullModule.registerQueue({ name: QueueNames.AgentsEvents })],
  controllers: [AgentContextHandlers],
  providers: [RunProgressConsumer],
})
export class AgentRunsModule {}
