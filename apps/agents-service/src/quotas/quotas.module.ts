import { Module } from '@nestjs/common';
import { StoresModule } from '../stores.module';
import { UserQuotas } from './user-quotas';

@Module({
  imports: [StoresModule],
  providers: [UserQuotas],
  exports: [UserQuotas],
})
export class QuotasModule {}
