import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { AccessAnnouncer } from '../common/access-announcer';
import { DatabaseModule } from '../database/database.module';
import { QuotasModule } from '../quotas/quotas.module';
import { WorkspaceStoreModule } from './workspace-store.module';
import { WorkspacesHandlers } from './workspaces.handlers';
import { WorkspacesService } from './workspaces.service';

/** Workspaces; deleting one removes its agents (AgentsModule's store). */
@Module({
  imports: [DatabaseModule, QuotasModule, WorkspaceStoreModule, AgentsModule],
  controllers: [WorkspacesHandlers],
  providers: [WorkspacesService, AccessAnnouncer],
})
export class WorkspacesModule {}
