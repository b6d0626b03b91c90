import { Module } from '@nestjs/common';
import { BullModule } from '@nestjs/bullmq';
import { QueueNames } from '@aas/contracts';
import { DeliveriesHandlers } from '../delivery/deliveries.handlers';
import { DeliveriesService } from '../delivery/deliveries.service';
import { DeliveryModule } from '../delivery/delivery.module';
import { SubscriptionsHandlers } from './subscriptions.handlers';
import { SubscriptionsService } from './subscriptions.service';

@Module({
  imports: [DeliveryModule, BullModule.registerQueue({ name: QueueNames.WebhookDeliveries })],
  controllers: [SubscriptionsHandlers, DeliveriesHandlers],
  providers: [SubscriptionsService, DeliveriesService],
})
export class SubscriptionsModule {}
