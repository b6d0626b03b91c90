import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { DeliveryModule } from '../delivery/delivery.module';
import { SubscriptionsModule } from '../subscriptions/subscriptions.module';
import { FanOutStore } from './fan-out.store';
import { PostgresFanOutStore } from './postgres-fan-out.store';
import { WebhookEventsConsumer } from './webhook-events.consumer';

/** The webhooks-events queue: run lifecycle events become deliveries; agent.deleted deletes the agent's webhooks. */
@Module({
  imports: [BullModule.registerQueue({ name: QueueNames.WebhooksEvents }), DeliveryModule, SubscriptionsModule],
  providers: [WebhookEventsConsumer, { provide: FanOutStore, useClass: PostgresFanOutStore }],
})
export class FanOutModule {}
