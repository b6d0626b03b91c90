import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { DatabaseModule } from '../database/database.module';
import { InstructionsModule } from '../instructions/instructions.module';
import { AgentContextHandlers } from './agent-context.handlers';
import { AgentRunsStore } from './agent-runs.store';
import { PostgresAgentRunsStore } from './postgres-agent-runs.store';
import { RunEffects } from './run-effects';
import { RunEndsHandlers } from './run-ends.handlers';
import { RunProgressConsumer } from './run-progress.consumer';

/** What agents-service does for runs: answers their agent context, follows their progress, stores the instructions they write, and applies their ends before runs-service shows them. */
@Module({
  imports: [DatabaseModule, InstructionsModule, BullModule.registerQueue({ name: QueueNames.AgentsEvents })],
  controllers: [AgentContextHandlers, RunEndsHandlers],
  providers: [RunEffects, RunProgressConsumer, { provide: AgentRunsStore, useClass: PostgresAgentRunsStore }],
})
export class AgentRunsModule {}
