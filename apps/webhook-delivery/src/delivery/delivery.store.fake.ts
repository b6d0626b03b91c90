import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { AttemptRecord, DeliveryStore, DeliveryToSend } from './delivery.store';
import { attemptError, healthChanges } from './endpoint-health';

/** The delivery worker's store in memory (database/in-memory-database.fake.ts), without batching; left out of the build. */
export class FakeDeliveryStore implements DeliveryStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async pending(deliveryId: string): Promise<DeliveryToSend | undefined> {
    const delivery = this.db.tables.deliveries.find((d) => d.id === deliveryId && d.status === 'pending');
    if (!delivery) return undefined;
    const webhook = this.db.tables.webhooks.find((w) => w.id === delivery.webhookId);
    return {
      id: delivery.id,
      event: delivery.event,
      body: delivery.body,
      attemptCount: delivery.attemptCount,
      pendingSince: delivery.pendingSince ?? delivery.createdAt,
      test: delivery.test,
      webhookId: webhook?.id ?? null,
      userId: webhook?.userId ?? null,
      webhookStatus: webhook?.status ?? null,
      url: webhook?.url ?? null,
      secretSealed: webhook?.secretSealed ?? null,
      chainRootId: delivery.chainRootId,
      chainDepth: delivery.chainDepth,
    };
  }

  async recordAttempt(record: AttemptRecord): Promise<void> {
    this.updateHealth(record);
    const delivery = this.db.tables.deliveries.find((d) => d.id === record.deliveryId);
    if (!delivery) return;
    const { outcome, result } = record;
    Object.assign(delivery, {
      attemptCount: record.attempt,
      status: outcome.status,
      nextAttemptAt: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
      finishedAt: outcome.status === 'pending' ? null : this.db.now(),
    });
    this.db.tables.attempts.push({
      id: String(++this.db.tables.attemptSeq),
      deliveryId: record.deliveryId,
      attempt: record.attempt,
      startedAt: record.startedAt,
      durationMs: result.durationMs,
      statusCode: result.statusCode,
      error: attemptError(record),
      responseBody: result.responseBody,
      requestHeaders: { ...result.requestHeaders },
      responseHeaders: result.responseHeaders && { ...result.responseHeaders },
    });
  }

  /** As PostgresDeliveryStore does for a batch of one. */
  private updateHealth(record: AttemptRecord): void {
    const webhook = this.db.tables.webhooks.find((w) => w.id === record.webhookId);
    if (!webhook) return;
    for (const change of healthChanges([record])) {
      webhook.consecutiveFailures = change.succeeded ? change.failures : webhook.consecutiveFailures + change.failures;
      if (change.lastSuccessAt && !(webhook.lastSuccessAt && webhook.lastSuccessAt > change.lastSuccessAt)) webhook.lastSuccessAt = change.lastSuccessAt;
      if (change.lastErrorAt && !(webhook.lastErrorAt && webhook.lastErrorAt > change.lastErrorAt)) {
        Object.assign(webhook, { lastError: change.lastError, lastErrorAt: change.lastErrorAt });
      }
    }
  }

  async postpone(deliveryId: string, nextAttemptAt: Date): Promise<void> {
    const delivery = this.db.tables.deliveries.find((d) => d.id === deliveryId && d.status === 'pending');
    if (delivery) delivery.nextAttemptAt = nextAttemptAt;
  }

  async giveUp(deliveryId: string): Promise<void> {
    const delivery = this.db.tables.deliveries.find((d) => d.id === deliveryId && d.status === 'pending');
    if (delivery) Object.assign(delivery, { status: 'failed', nextAttemptAt: null, finishedAt: this.db.now() });
  }

  async cancel(deliveryId: string): Promise<void> {
    const delivery = this.db.tables.deliveries.find((d) => d.id === deliveryId);
    if (delivery) Object.assign(delivery, { status: 'cancelled', nextAttemptAt: null, finishedAt: this.db.now() });
  }

  async disableWebhook(webhookId: string): Promise<void> {
    const webhook = this.db.tables.webhooks.find((w) => w.id === webhookId);
    if (webhook) Object.assign(webhook, { status: 'disabled', disabledReason: 'receiver_gone', updatedAt: this.db.now() });
  }
}
