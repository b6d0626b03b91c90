import { Module } from '@nestjs/common';
import { AccessAnnouncer } from '../common/access-announcer';
import { DatabaseModule } from '../database/database.module';
import { QuotasModule } from '../quotas/quotas.module';
import { WorkspaceStoreModule } from '../workspaces/workspace-store.module';
import { AgentStore } from './agent.store';
import { AgentsHandlers } from './agents.handlers';
import { AgentsService } from './agents.service';
import { PostgresAgentStore } from './postgres-agent.store';

const STORE = { provide: AgentStore, useClass: PostgresAgentStore };

@Module({
  imports: [DatabaseModule, QuotasModule, WorkspaceStoreModule],
  controllers: [AgentsHandlers],
  providers: [AgentsService, AccessAnnouncer, STORE],
  exports: [AgentsService, STORE],
})
export class AgentsModule {}
