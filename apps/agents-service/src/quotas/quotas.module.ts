import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { PostgresUserQuotaStore } from './postgres-user-quota.store';
import { UserQuotaStore } from './user-quota.store';
import { UserQuotas } from './user-quotas';

@Module({
  imports: [DatabaseModule],
  providers: [UserQuotas, { provide: UserQuotaStore, useClass: PostgresUserQuotaStore }],
  exports: [UserQuotas],
})
export class QuotasModule {}
