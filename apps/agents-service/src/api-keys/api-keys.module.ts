import { Module } from '@nestjs/common';
import { StoresModule } from '../stores.module';
import { QuotasModule } from '../quotas/quotas.module';
import { ApiKeysHandlers } from './api-keys.handlers';
import { ApiKeysService } from './api-keys.service';
import { KeyRevocationRegistry } from './key-revocation.registry';
import { KeyUsageFlusher } from './key-usage.flusher';

@Module({
  imports: [StoresModule, QuotasModule],
  controllers: [ApiKeysHandlers],
  providers: [ApiKeysService, KeyRevocationRegistry, KeyUsageFlusher],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
