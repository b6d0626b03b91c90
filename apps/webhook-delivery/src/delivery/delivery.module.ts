import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { FairnessModule } from '../fairness/fairness.module';
import { OutboundModule } from '../outbound/outbound.module';
import { SigningModule } from '../signing/signing.module';
import { BacklogFeeder } from './backlog-feeder';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryStore } from './delivery.store';
import { DeliveryProcessor } from './delivery.processor';
import { PostgresDeliveryStore } from './postgres-delivery.store';

/** The delivery worker: sends, records each attempt, retries; exports the delivery queue (and its backlog feeder) to whatever queues deliveries. */
@Module({
  imports: [BullModule.registerQueue({ name: QueueNames.WebhookDeliveries }), SigningModule, OutboundModule, FairnessModule],
  providers: [{ provide: DeliveryStore, useClass: PostgresDeliveryStore }, DeliveryMetrics, DeliveryQueue, BacklogFeeder, DeliveryProcessor],
  exports: [DeliveryQueue, BacklogFeeder],
})
export class DeliveryModule {}
