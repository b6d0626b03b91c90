import { Module } from '@nestjs/common';
import { AccessAnnouncer } from '../common/access-announcer';
import { QuotasModule } from '../quotas/quotas.module';
import { AgentsHandlers } from './agents.handlers';
import { AgentsService } from './agents.service';

@Module({
  imports: [QuotasModule],
  controllers: [AgentsHandlers],
  providers: [AgentsService, AccessAnnouncer],
  exports: [AgentsService],
})
export class AgentsModule {}
