import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AgentContext,
  AgentsPatterns,
  CreateWebhookMessage,
  CreatedWebhookDto,
  UpdateWebhookMessage,
  WebhookDto,
} from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { DataSource } from 'typeorm';
import { SecretBox } from '../delivery/secret-box';
import { generateSigningSecret } from '../delivery/sign-payload';
import { assertAllowedWebhookUrl } from '../delivery/ssrf-guard';
import { WebhookEntity } from './webhook.entity';
import { toCreatedWebhookDto, toWebhookDto } from './webhook.mapper';

@Injectable()
export class SubscriptionsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly services: ServiceClient,
    private readonly secrets: SecretBox,
  ) {}

  async list(userId: string, agentId: string): Promise<WebhookDto[]> {
    await this.agent(userId, agentId);
    const webhooks = await this.dataSource.manager.find(WebhookEntity, {
      where: { agentId, userId },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return webhooks.map(toWebhookDto);
  }

  /** The signing secret is returned here once and kept only encrypted. */
  async create(message: CreateWebhookMessage): Promise<CreatedWebhookDto> {
    const agent = await this.agent(message.user_id, message.agent_id);
    const url = validUrl(message.url);
    const secret = generateSigningSecret();
    const now = new Date();
    const webhook = await this.dataSource.manager.save(
      this.dataSource.manager.create(WebhookEntity, {
        agentId: agent.agent_id,
        userId: message.user_id,
        url,
        events: message.events,
        status: 'active',
        secretSealed: this.secrets.seal(secret),
        createdAt: now,
        updatedAt: now,
      }),
    );
    return toCreatedWebhookDto(webhook, secret);
  }

  async get(userId: string, agentId: string, webhookId: string): Promise<WebhookDto> {
    return toWebhookDto(await this.find(userId, agentId, webhookId));
  }

  /** Only the fields given change. */
  async update(message: UpdateWebhookMessage): Promise<WebhookDto> {
    const webhook = await this.find(message.user_id, message.agent_id, message.webhook_id);
    if (message.url !== undefined) webhook.url = validUrl(message.url);
    if (message.events !== undefined) webhook.events = message.events;
    if (message.status !== undefined) webhook.status = message.status;
    webhook.updatedAt = new Date();
    return toWebhookDto(await this.dataSource.manager.save(webhook));
  }

  /** Its deliveries go with it; queued attempts find it gone and send nothing. */
  async delete(userId: string, agentId: string, webhookId: string): Promise<void> {
    const webhook = await this.find(userId, agentId, webhookId);
    await this.dataSource.manager.delete(WebhookEntity, { id: webhook.id });
  }

  async find(userId: string, agentId: string, webhookId: string): Promise<WebhookEntity> {
    const webhook =
      isUUID(webhookId) && isUUID(agentId)
        ? await this.dataSource.manager.findOneBy(WebhookEntity, { id: webhookId, agentId, userId })
        : null;
    if (!webhook) throw new ResourceNotFoundError('Webhook', webhookId);
    return webhook;
  }

  private agent(userId: string, agentId: string): Promise<AgentContext> {
    return this.services.request<AgentContext>(AgentsPatterns.GetAgentForRun, { user_id: userId, agent_id: agentId });
  }
}

function validUrl(url: string): string {
  try {
    assertAllowedWebhookUrl(url);
    return url;
  } catch (error) {
    const message = `url: ${(error as Error).message}`;
    throw new ValidationFailedError(message, [{ field: 'url', message }]);
  }
}
