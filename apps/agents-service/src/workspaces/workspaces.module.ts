import { Module } from '@nestjs/common';
import { AccessAnnouncer } from '../common/access-announcer';
import { StoresModule } from '../stores.module';
import { QuotasModule } from '../quotas/quotas.module';
import { WorkspacesHandlers } from './workspaces.handlers';
import { WorkspacesService } from './workspaces.service';

@Module({
  imports: [StoresModule, QuotasModule],
  controllers: [WorkspacesHandlers],
  providers: [WorkspacesService, AccessAnnouncer],
})
export class WorkspacesModule {}
