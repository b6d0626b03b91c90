import { Module } from '@nestjs/common';
import { AgentsModule } from '../agents/agents.module';
import { DatabaseModule } from '../database/database.module';
import { SigningModule } from '../signing/signing.module';
import { PostgresWebhookStore } from './postgres-webhook.store';
import { SubscriptionsHandlers } from './subscriptions.handlers';
import { SubscriptionsService } from './subscriptions.service';
import { WebhookQuota } from './webhook-quota';
import { WebhookStore } from './webhook.store';

const STORE = { provide: WebhookStore, useClass: PostgresWebhookStore };

/** Webhook CRUD and the per-agent quota; exports the ownership check (SubscriptionsService.find) and the store. */
@Module({
  imports: [DatabaseModule, AgentsModule, SigningModule],
  controllers: [SubscriptionsHandlers],
  providers: [SubscriptionsService, WebhookQuota, STORE],
  exports: [SubscriptionsService, STORE],
})
export class SubscriptionsModule {}
