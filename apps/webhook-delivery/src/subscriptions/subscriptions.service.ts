import { Injectable } from '@nestjs/common';
import { CreateWebhookMessage, CreatedWebhookDto, UpdateWebhookMessage, WebhookDto } from '@aas/contracts';
import { ResourceNotFoundError, ValidationFailedError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { OwnedAgents } from '../agents/owned-agents';
import { WebhookEntity } from '../database/webhook.entity';
import { EndpointGate } from '../fairness/endpoint-gate';
import { InvalidWebhookUrlError } from '../outbound/ssrf-guard';
import { WebhookUrlCheck } from '../outbound/webhook-url-check';
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
    private readonly urls: WebhookUrlCheck,
    private readonly circuits: EndpointGate,
  ) {}

  async list(userId: string, agentId: string): Promise<WebhookDto[]> {
    if (!isUUID(agentId)) throw new ResourceNotFoundError('Agent', agentId);
    const [agent, webhooks] = await Promise.all([this.agents.get(userId, agentId), this.webhooks.listOfAgent(userId, agentId)]);
    return this.withHealth(webhooks.filter((w) => ofGeneration(w, agent.generation)));
  }

  /**
   * The signing secret is returned here once and kept only sealed. At most QUOTA_WEBHOOKS_PER_AGENT per
   * agent. A URL this installation would refuse to call is refused here (WebhookUrlCheck).
   */
  async create(message: CreateWebhookMessage): Promise<CreatedWebhookDto> {
    const agent = await this.agents.get(message.user_id, message.agent_id);
    const url = await this.validUrl(message.url);
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
    const [webhook] = await this.withHealth([await this.find(userId, agentId, webhookId)]);
    return webhook;
  }

  /** Only the fields given change; a new URL is checked as at creation. */
  async update(message: UpdateWebhookMessage): Promise<WebhookDto> {
    const webhook = await this.find(message.user_id, message.agent_id, message.webhook_id);
    const url = message.url === undefined ? undefined : await this.validUrl(message.url);
    const updated = await this.webhooks.update(webhook.id, { url, events: message.events, status: message.status });
    if (!updated) throw new ResourceNotFoundError('Webhook', message.webhook_id);
    const [dto] = await this.withHealth([updated]);
    return dto;
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

  /** The webhooks as the API shows them, with their health: their circuits are read from Redis in one round trip. */
  private async withHealth(webhooks: WebhookEntity[]): Promise<WebhookDto[]> {
    const open = await this.circuits.circuitsOpenUntil(webhooks.map((w) => w.id));
    return webhooks.map((w) => toWebhookDto(w, open.get(w.id)));
  }

  private async validUrl(url: string): Promise<string> {
    try {
      await this.urls.assertAllowed(url);
      return url;
    } catch (error) {
      if (!(error instanceof InvalidWebhookUrlError)) throw error;
      const message = `url: ${error.message}`;
      throw new ValidationFailedError(message, [{ field: 'url', message }]);
    }
  }
}

/** A webhook made before generations existed has none, and is taken as the agent's. */
function ofGeneration(webhook: WebhookEntity, generation: number): boolean {
  return webhook.agentGeneration === null || Number(webhook.agentGeneration) === generation;
}
