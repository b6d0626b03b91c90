import { SecretBox } from '@aas/platform';
import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QueueNames } from '@aas/contracts';
import { WebhooksEnv } from '../config/webhooks.env';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryStore } from './delivery-store';
import { DeliverySweep } from './delivery-sweep';
import { DeliverySweepProcessor, WEBHOOKS_MAINTENANCE_QUEUE } from './delivery-sweep.processor';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryProcessor } from './delivery.processor';
import { WebhookEventsConsumer } from './webhook-events.consumer';
import { WebhookSender } from './webhook-sender';

@Module({
  imports: [
    BullModule.registerQueue({ name: QueueNames.WebhooksEvents }, { name: QueueNames.WebhookDeliveries }, { name: WEBHOOKS_MAINTENANCE_QUEUE }),
  ],
  providers: [
    {
      provide: SecretBox,
      inject: [ConfigService],
      useFactory: (config: ConfigService<WebhooksEnv, true>) => new SecretBox(config.get('WEBHOOK_SECRET_KEY', { infer: true })),
    },
    WebhookSender,
    DeliveryStore,
    WebhookEventsConsumer,
    DeliveryMetrics,
    DeliveryQueue,
    DeliveryProcessor,
    DeliverySweep,
    DeliverySweepProcessor,
  ],
  exports: [SecretBox, DeliveryQueue],
})
export class DeliveryModule {}
