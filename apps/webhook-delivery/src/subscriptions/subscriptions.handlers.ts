import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentWebhooksMessage,
  CreatedWebhookDto,
  CreateWebhookMessage,
  HandlesRequest,
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

  @HandlesRequest(WebhooksPatterns.ListWebhooks)
  async list(@Payload() message: AgentWebhooksMessage): Promise<WebhookListResponse> {
    return { webhooks: await this.subscriptions.list(message.user_id, message.agent_id) };
  }

  @HandlesRequest(WebhooksPatterns.CreateWebhook)
  create(@Payload() message: CreateWebhookMessage): Promise<CreatedWebhookDto> {
    return this.subscriptions.create(message);
  }

  @HandlesRequest(WebhooksPatterns.GetWebhook)
  get(@Payload() message: WebhookRefMessage): Promise<WebhookDto> {
    return this.subscriptions.get(message.user_id, message.agent_id, message.webhook_id);
  }

  @HandlesRequest(WebhooksPatterns.UpdateWebhook)
  update(@Payload() message: UpdateWebhookMessage): Promise<WebhookDto> {
    return this.subscriptions.update(message);
  }

  @HandlesRequest(WebhooksPatterns.DeleteWebhook)
  async delete(@Payload() message: WebhookRefMessage): Promise<{ deleted: true }> {
    await this.subscriptions.delete(message.user_id, message.agent_id, message.webhook_id);
    return { deleted: true };
  }
}
