import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module';
import { SubscriptionsHandlers } from './subscriptions.handlers';
import { SubscriptionsService } from './subscriptions.service';

@Module({
  imports: [DeliveryModule],
  controllers: [SubscriptionsHandlers],
  providers: [SubscriptionsService],
})
export class SubscriptionsModule {}
