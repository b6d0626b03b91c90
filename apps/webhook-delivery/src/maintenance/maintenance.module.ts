import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { DeliveryModule } from '../delivery/delivery.module';
import { DeliverySweep } from './delivery-sweep';
import { DeliverySweepProcessor } from './delivery-sweep.processor';
import { LostDeliveryStore } from './lost-delivery.store';
import { PostgresLostDeliveryStore } from './postgres-lost-delivery.store';

/** The webhooks-maintenance queue: the periodic sweep that queues again pending deliveries whose job was lost. */
@Module({
  imports: [BullModule.registerQueue({ name: QueueNames.WebhooksMaintenance }), DeliveryModule],
  providers: [DeliverySweep, DeliverySweepProcessor, { provide: LostDeliveryStore, useClass: PostgresLostDeliveryStore }],
})
export class MaintenanceModule {}
