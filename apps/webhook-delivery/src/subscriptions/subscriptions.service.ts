import { Injectable } from '@nestjs/common';
import { CreateWebhookMessage, CreatedWebhookDto, UpdateWebhookMessage, WebhookDto } from '@aas/contracts';
import { ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { OwnedAgents } from '../agents/owned-agents';
import { WebhookEntity } from '../database/webhook.entity';
import { assertAllowedWebhookUrl } from '../outbound/ssrf-guard';
import { SigningSecrets } from '../signing/signing-secrets';
import { WebhookQuota } from './webhook-quota';
import { toCreatedWebhookDto, toWebhookDto } from './webhook.mapper';
import { WebhookStore } from './webhook.store';
import { Transactions } from '@aas/platform';

/** Webhook CRUD. agents-service, the authority on agents, is asked on every request: a deleted agent's webhooks are a 404 at once. */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly transactions: Transactions,
    private readonly agents: OwnedAgents,
    private readonly secrets: SigningSecrets,
    private readonly quota: WebhookQuota,
  ) {}

  async list(userId: string, agentId: string): Promise<WebhookDto[]> {
    if (!isUUID(agentId)) throw new ResourceNotFoundError('Agent', agentId);
    const [agent, webhooks] = await Promise.all([this.agents.get(userId, agentId), this.webhooks.listOfAgent(userId, agentId)]);
    return webhooks.filter((w) => ofGeneration(w, agent.generation)).map(toWebhookDto);
  }

  /** The signing secret is returned here once and kept only sealed. At most QUOTA_WEBHOOKS_PER_AGENT per agent. */
  async create(message: CreateWebhookMessage): Promise<CreatedWebhookDto> {
    const agent = await this.agents.get(message.user_id, message.agent_id);
    const url = validUrl(message.url);
    const { secret, sealed } = this.secrets.create();
    const webhook = await this.transactions.run(async (tx) => {
      await this.quota.reserve(tx, agent.agent_id, agent.generation);
      return this.webhooks.insert(tx, {
        agentId: agent.agent_id,
        agentGeneration: agent.generation,
        userId: message.user_id,
        url,
        events: message.events,
        secretSealed: sealed,
      });
    });
    return toCreatedWebhookDto(webhook, secret);
  }

  async get(userId: string, agentId: string, webhookId: string): Promise<WebhookDto> {
    return toWebhookDto(await this.find(userId, agentId, webhookId));
  }

  /** Only the fields given change. */
  async update(message: UpdateWebhookMessage): Promise<WebhookDto> {
    const webhook = await this.find(message.user_id, message.agent_id, message.webhook_id);
    const url = message.url === undefined ? undefined : validUrl(message.url);
    const updated = await this.webhooks.update(webhook.id, { url, events: message.events, status: message.status });
    if (!updated) throw new ResourceNotFoundError('Webhook', message.webhook_id);
    return toWebhookDto(updated);
  }

  /** Its deliveries go with it; queued attempts find it gone and send nothing. */
  async delete(userId: string, agentId: string, webhookId: string): Promise<void> {
    const webhook = await this.find(userId, agentId, webhookId);
    await this.webhooks.delete(webhook.id);
  }

  /**
   * The caller's webhook of the caller's agent. agents-service is asked while the webhook is read: a
   * deleted agent's webhooks are a 404 at once, and so are an earlier agent's with the same id.
   */
  async find(userId: string, agentId: string, webhookId: string): Promise<WebhookEntity> {
    if (!isUUID(webhookId) || !isUUID(agentId)) throw new ResourceNotFoundError('Webhook', webhookId);
    const [agent, webhook] = await Promise.all([this.agents.get(userId, agentId), this.webhooks.findOwned(userId, agentId, webhookId)]);
    if (!webhook || !ofGeneration(webhook, agent.generation)) throw new ResourceNotFoundError('Webhook', webhookId);
    return webhook;
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
