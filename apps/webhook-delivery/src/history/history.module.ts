import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DeliveriesHandlers } from './deliveries.handlers';
import { DeliveriesService } from './deliveries.service';
import { DeliveryHistoryStore } from './delivery-history.store';
import { PostgresDeliveryHistoryStore } from './postgres-delivery-history.store';
import { RedeliveryPacing } from './redelivery-pacing';
import { RequestedSendLimits } from './requested-send-limits';

/** A webhook's deliveries with their attempts, redelivery (one, or every failed one since a time) and test events. */
@Module({
  imports: [SubscriptionsModule, DeliveryModule],
  controllers: [DeliveriesHandlers],
  providers: [DeliveriesService, RequestedSendLimits, RedeliveryPacing, { provide: DeliveryHistoryStore, useClass: PostgresDeliveryHistoryStore }],
})
export class HistoryModule {}
