import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { DeliveriesHandlers } from './deliveries.handlers';
import { DeliveriesService } from './deliveries.service';
import { DeliveryHistoryStore } from './delivery-history.store';
import { PostgresDeliveryHistoryStore } from './postgres-delivery-history.store';

/** A webhook's deliveries with their attempts, and redelivery. */
@Module({
  imports: [SubscriptionsModule, DeliveryModule],
  controllers: [DeliveriesHandlers],
  providers: [DeliveriesService, { provide: DeliveryHistoryStore, useClass: PostgresDeliveryHistoryStore }],
})
export class HistoryModule {}
