import { Module } from '@nestjs/common';
import { DeliveriesHandlers } from '../delivery/deliveries.handlers';
import { DeliveriesService } from '../delivery/deliveries.service';
import { DeliveryModule } from '../delivery/delivery.module';
import { SubscriptionsHandlers } from './subscriptions.handlers';
import { SubscriptionsService } from './subscriptions.service';

@Module({
  imports: [DeliveryModule],
  controllers: [SubscriptionsHandlers, DeliveriesHandlers],
  providers: [SubscriptionsService, DeliveriesService],
})
export class SubscriptionsModule {}
