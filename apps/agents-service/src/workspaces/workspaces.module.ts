import { Module } from '@nestjs/common';
import { AccessAnnouncer } from '../common/access-announcer';
import { QuotasModule } from '../quotas/quotas.module';
import { WorkspacesHandlers } from './workspaces.handlers';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [QuotasModule],
  controllers: [WorkspacesHandlers],
  providers: [WorkspacesService, AccessAnnouncer],
})
export class WorkspacesModule {}
