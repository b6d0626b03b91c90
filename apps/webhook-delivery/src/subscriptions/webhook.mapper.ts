import { CreatedWebhookDto, WebhookDto } from '@aas/contracts';
import { WebhookEntity } from '../database/webhook.entity';

export function toWebhookDto(webhook: WebhookEntity): WebhookDto {
  return {
    webhook_id: webhook.id,
    agent_id: webhook.agentId,
    user_id: webhook.userId,
    url: webhook.url,
    events: webhook.events,
    status: webhook.status,
    created_at: webhook.createdAt.toISOString(),
    updated_at: webhook.updatedAt.toISOString(),
  };
}

export function toCreatedWebhookDto(webhook: WebhookEntity, signingSecret: string): CreatedWebhookDto {
  return {
    webhook_id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    signing_secret: signingSecret,
    status: webhook.status,
    created_at: webhook.createdAt.toISOString(),
  };
}
