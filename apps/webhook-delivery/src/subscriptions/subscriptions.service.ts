import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  AgentContext,
  AgentsPatterns,
  CreateWebhookMessage,
  CreatedWebhookDto,
  UpdateWebhookMessage,
  WebhookDto,
} from '@aas/contracts';
import { ServiceClient, SecretBox } from '@aas/platform';
import { QuotaExceededError, ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { DataSource, EntityManager } from 'typeorm';
import { WebhooksEnv } from '../config/webhooks.env';
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
    private readonly config: ConfigService<WebhooksEnv, true>,
  ) {}

  async list(userId: string, agentId: string): Promise<WebhookDto[]> {
    if (!isUUID(agentId)) throw new ResourceNotFoundError('Agent', agentId);
    const [agent, webhooks] = await Promise.all([
      this.agent(userId, agentId),
      this.dataSource.manager.find(WebhookEntity, { where: { agentId, userId }, order: { createdAt: 'ASC', id: 'ASC' } }),
    ]);
    return webhooks.filter((w) => ofGeneration(w, agent.generation)).map(toWebhookDto);
  }

  /** The signing secret is returned here once and kept only encrypted. At most QUOTA_WEBHOOKS_PER_AGENT per agent. */
  async create(message: CreateWebhookMessage): Promise<CreatedWebhookDto> {
    const agent = await this.agent(message.user_id, message.agent_id);
    const url = validUrl(message.url);
    const secret = generateSigningSecret();
    const now = new Date();
    const webhook = await this.dataSource.transaction(async (manager) => {
      await this.reserveSlot(manager, agent.agent_id, agent.generation);
      return manager.save(
        manager.create(WebhookEntity, {
          agentId: agent.agent_id,
          agentGeneration: String(agent.generation),
          userId: message.user_id,
          url,
          events: message.events,
          status: 'active',
          secretSealed: this.secrets.seal(secret),
          createdAt: now,
          updatedAt: now,
        }),
      );
    });
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

  /**
   * The caller's webhook of the caller's agent. agents-service, the authority on agents, is asked while the
   * webhook is read: a deleted agent's webhooks are a 404 at once, and so are an earlier agent's with the same id.
   */
  async find(userId: string, agentId: string, webhookId: string): Promise<WebhookEntity> {
    if (!isUUID(webhookId) || !isUUID(agentId)) throw new ResourceNotFoundError('Webhook', webhookId);
    const [agent, webhook] = await Promise.all([
      this.agent(userId, agentId),
      this.dataSource.manager.findOneBy(WebhookEntity, { id: webhookId, agentId, userId }),
    ]);
    if (!webhook || !ofGeneration(webhook, agent.generation)) throw new ResourceNotFoundError('Webhook', webhookId);
    return webhook;
  }

  /**
   * The agent's row lives in agents-service, so a transaction-scoped advisory lock on the agent id
   * stands in for it: creations for one agent are serialised, and two can never both take the last slot.
   */
  private async reserveSlot(manager: EntityManager, agentId: string, generation: number): Promise<void> {
    const limit = this.config.get('QUOTA_WEBHOOKS_PER_AGENT', { infer: true });
    if (limit === 0) return;
    await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`webhooks:agent:${agentId}`]);
    const [{ held }]: { held: number }[] = await manager.query(
      `SELECT count(*)::int AS held FROM (
         SELECT 1 FROM webhooks WHERE agent_id = $1 AND (agent_generation IS NULL OR agent_generation = $3) LIMIT $2) counted`,
      [agentId, limit, generation],
    );
    if (held >= limit) {
      throw new QuotaExceededError(
        `This agent has ${held} webhooks, the most one agent may have (quota webhooks_per_agent is ${limit}); delete one before creating another`,
        'webhooks_per_agent',
        limit,
      );
    }
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

/** A webhook made before generations existed has none, and is taken as the agent's. */
function ofGeneration(webhook: WebhookEntity, generation: number): boolean {
  return webhook.agentGeneration === null || Number(webhook.agentGeneration) === generation;
}
