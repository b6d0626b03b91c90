import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { DatabaseModule } from '../database/database.module';
import { FairnessModule } from '../fairness/fairness.module';
import { OutboundModule } from '../outbound/outbound.module';
import { SigningModule } from '../signing/signing.module';
import { PostgresWebhookStore } from './postgres-webhook.store';
import { SubscriptionsHandlers } from './subscriptions.handlers';
import { SubscriptionsService } from './subscriptions.service';
import { WebhookQuota } from './webhook-quota';
import { WebhookStore } from './webhook.store';

const STORE = { provide: WebhookStore, useClass: PostgresWebhookStore };

/**
 * Webhook CRUD, the per-agent quota, the URL check and each webhook's health (its circuit from the
 * endpoint gate); exports the ownership check (SubscriptionsService.find) and the store.
 */
@Module({
  imports: [DatabaseModule, AgentsModule, SigningModule, OutboundModule, FairnessModule],
  controllers: [SubscriptionsHandlers],
  providers: [SubscriptionsService, WebhookQuota, STORE],
  exports: [SubscriptionsService, STORE],
})
export class SubscriptionsModule {}
