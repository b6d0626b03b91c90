import { randomUUID } from 'node:crypto';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { WebhookEntity } from '../database/webhook.entity';
import { NewWebhook, WebhookChanges, WebhookStore } from './webhook.store';
import { Transaction } from '@aas/platform';

/** The webhook store in memory (database/in-memory-database.fake.ts); left out of the build. */
export class FakeWebhookStore implements WebhookStore {
  /** The agents whose lock each transaction took, in order. */
  readonly locked: string[] = [];

  constructor(private readonly db: InMemoryDatabase) {}

  private get webhooks(): WebhookEntity[] {
    return this.db.tables.webhooks;
  }

  async listOfAgent(userId: string, agentId: string): Promise<WebhookEntity[]> {
    return this.webhooks.filter((w) => w.agentId === agentId && w.userId === userId).map(copy);
  }

  async findOwned(userId: string, agentId: string, webhookId: string): Promise<WebhookEntity | null> {
    const webhook = this.webhooks.find((w) => w.id === webhookId && w.agentId === agentId && w.userId === userId);
    return webhook ? copy(webhook) : null;
  }

  async lockAgent(tx: Transaction, agentId: string): Promise<void> {
    this.db.inTransaction(tx);
    this.locked.push(agentId);
  }

  async countOfGeneration(tx: Transaction, agentId: string, generation: number, atMost: number): Promise<number> {
    this.db.inTransaction(tx);
    const held = this.webhooks.filter((w) => w.agentId === agentId && (w.agentGeneration === null || Number(w.agentGeneration) === generation));
    return Math.min(held.length, atMost);
  }

  async insert(tx: Transaction, webhook: NewWebhook): Promise<WebhookEntity> {
    this.db.inTransaction(tx);
    const now = this.db.now();
    const row: WebhookEntity = {
      id: randomUUID(),
      agentId: webhook.agentId,
      agentGeneration: String(webhook.agentGeneration),
      userId: webhook.userId,
      url: webhook.url,
      events: [...webhook.events],
      status: 'active',
      secretSealed: webhook.secretSealed,
      consecutiveFailures: 0,
      lastSuccessAt: null,
      lastError: null,
      lastErrorAt: null,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    };
    this.webhooks.push(row);
    return copy(row);
  }

  async update(webhookId: string, changes: WebhookChanges): Promise<WebhookEntity | null> {
    const webhook = this.webhooks.find((w) => w.id === webhookId);
    if (!webhook) return null;
    if (changes.url !== undefined) webhook.url = changes.url;
    if (changes.events !== undefined) webhook.events = [...changes.events];
    if (changes.status === 'active') webhook.disabledReason = null;
    if (changes.status === 'disabled' && webhook.status !== 'disabled') webhook.disabledReason = 'disabled_by_owner';
    if (changes.status !== undefined) webhook.status = changes.status;
    webhook.updatedAt = this.db.now();
    return copy(webhook);
  }

  async delete(webhookId: string): Promise<void> {
    this.db.deleteWebhooks((w) => w.id === webhookId);
  }

  async deleteOfAgent(agentId: string, userId: string, generation: number | undefined): Promise<void> {
    this.db.deleteWebhooks(
      (w) =>
        w.agentId === agentId &&
        w.userId === userId &&
        (generation === undefined || w.agentGeneration === null || Number(w.agentGeneration) <= generation),
    );
  }
}

function copy(webhook: WebhookEntity): WebhookEntity {
  return { ...webhook, events: [...webhook.events] };
}
