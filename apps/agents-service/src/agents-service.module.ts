import { DynamicModule, Module } from '@nestjs/common';
import { EVENT_QUEUES } from '@aas/contracts';
import { OutboxModule, queuesModule, serviceFoundation } from '@aas/platform';
import { AgentRunsModule } from './agent-runs/agent-runs.module';
import { AgentsModule } from './agents/agents.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { BootstrapApiKey } from './api-keys/bootstrap-api-key';
import { ConsoleSessionsModule } from './console-sessions/console-sessions.module';
import { AGENTS_SERVICE } from './agents-service.definition';
import { InstructionsModule } from './instructions/instructions.module';
import { UsersModule } from './users/users.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

@Module({})
export class AgentsServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: AgentsServiceModule,
      imports: [
        ...serviceFoundation(AGENTS_SERVICE, overrides),
        queuesModule(),
        OutboxModule.forRoutes(EVENT_QUEUES),
        UsersModule,
        ApiKeysModule,
        ConsoleSessionsModule,
        AgentsModule,
        WorkspacesModule,
        InstructionsModule,
        AgentRunsModule,
      ],
      providers: [BootstrapApiKey],
    };
  }
}
