import { Module } from '@nestjs/common';
import { UserQuotas } from './user-quotas';

@Module({
  providers: [UserQuotas],
  exports: [UserQuotas],
})
export class QuotasModule {}
