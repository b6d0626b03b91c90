import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { QuotasModule } from '../quotas/quotas.module';
import { ApiKeyStore } from './api-key.store';
import { ApiKeysHandlers } from './api-keys.handlers';
import { ApiKeysService } from './api-keys.service';
import { KeyRevocationRegistry } from './key-revocation.registry';
import { KeyUsageFlusher } from './key-usage.flusher';
import { PostgresApiKeyStore } from './postgres-api-key.store';

const STORE = { provide: ApiKeyStore, useClass: PostgresApiKeyStore };

@Module({
  imports: [DatabaseModule, QuotasModule],
  controllers: [ApiKeysHandlers],
  providers: [ApiKeysService, KeyRevocationRegistry, KeyUsageFlusher, STORE],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
