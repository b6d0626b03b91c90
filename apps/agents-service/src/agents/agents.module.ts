import { Module } from '@nestjs/common';
import { AccessAnnouncer } from '../common/access-announcer';
import { StoresModule } from '../stores.module';
import { QuotasModule } from '../quotas/quotas.module';
import { AgentsHandlers } from './agents.handlers';
import { AgentsService } from './agents.service';

@Module({
  imports: [StoresModule, QuotasModule],
  controllers: [AgentsHandlers],
  providers: [AgentsService, AccessAnnouncer],
  exports: [AgentsService],
})
export class AgentsModule {}
