import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AgentWebhooksMessage,
  CreateWebhookMessage,
  CreatedWebhookDto,
  UpdateWebhookMessage,
  WebhookDto,
  WebhookListResponse,
  WebhookRefMessage,
  WebhooksPatterns,
} from '@aas/contracts';
import { SubscriptionsService } from './subscriptions.service';

@Controller()
export class SubscriptionsHandlers {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @MessagePattern(WebhooksPatterns.ListWebhooks)
  async list(@Payload() message: AgentWebhooksMessage): Promise<WebhookListResponse> {
    return { webhooks: await this.subscriptions.list(message.user_id, message.agent_id) };
  }

  @MessagePattern(WebhooksPatterns.CreateWebhook)
  create(@Payload() message: CreateWebhookMessage): Promise<CreatedWebhookDto> {
    return this.subscriptions.create(message);
  }

  @MessagePattern(WebhooksPatterns.GetWebhook)
  get(@Payload() message: WebhookRefMessage): Promise<WebhookDto> {
    return this.subscriptions.get(message.user_id, message.agent_id, message.webhook_id);
  }

  @MessagePattern(WebhooksPatterns.UpdateWebhook)
  update(@Payload() message: UpdateWebhookMessage): Promise<WebhookDto> {
    return this.subscriptions.update(message);
  }

  @MessagePattern(WebhooksPatterns.DeleteWebhook)
  async delete(@Payload() message: WebhookRefMessage): Promise<{ deleted: true }> {
    await this.subscriptions.delete(message.user_id, message.agent_id, message.webhook_id);
    return { deleted: true };
  }
}
