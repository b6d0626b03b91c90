import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QuotasModule } from '../quotas/quotas.module';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysHandlers } from './api-keys.handlers';
import { ApiKeysService } from './api-keys.service';
import { KeyRevocationRegistry } from './key-revocation.registry';
import { KeyUsageFlusher } from './key-usage.flusher';

@Module({
  imports: [TypeOrmModule.forFeature([ApiKeyEntity]), QuotasModule],
  controllers: [ApiKeysHandlers],
  providers: [ApiKeysService, KeyRevocationRegistry, KeyUsageFlusher],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
