import { randomUUID } from 'node:crypto';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';
import { WebhookEntity } from './webhook.entity';
import { InMemoryTables } from '@aas/platform';

export interface Tables {
  webhooks: WebhookEntity[];
  deliveries: DeliveryEntity[];
  attempts: DeliveryAttemptEntity[];
  /** The last value of delivery_attempts.id. */
  attemptSeq: number;
}

function emptyTables(): Tables {
  return { webhooks: [], deliveries: [], attempts: [], attemptSeq: 0 };
}

/**
 * The webhooks schema in memory (InMemoryTables: a movable clock, transactions that roll back), with
 * builders for its rows.
 * Rows are kept in the order they were written, which stands in for PostgreSQL's microsecond
 * timestamps where two rows of one millisecond are ordered by time.
 */
export class InMemoryDatabase extends InMemoryTables<Tables> {
  constructor() {
    super(emptyTables);
  }

  /** The database's clock. */
  now(): Date {
    return new Date(this.clockMs());
  }

  /** Deletes the webhooks `doomed` picks, and with them their deliveries and attempts (ON DELETE CASCADE). */
  deleteWebhooks(doomed: (webhook: WebhookEntity) => boolean): void {
    const gone = new Set(this.tables.webhooks.filter(doomed).map((w) => w.id));
    this.tables.webhooks = this.tables.webhooks.filter((w) => !gone.has(w.id));
    const deliveries = new Set(this.tables.deliveries.filter((d) => gone.has(d.webhookId)).map((d) => d.id));
    this.tables.deliveries = this.tables.deliveries.filter((d) => !deliveries.has(d.id));
    this.tables.attempts = this.tables.attempts.filter((a) => !deliveries.has(a.deliveryId));
  }

  /** Deletes the deliveries `doomed` picks, with their attempts (ON DELETE CASCADE); answers how many. */
  deleteDeliveries(doomed: (delivery: DeliveryEntity) => boolean): number {
    const gone = new Set(this.tables.deliveries.filter(doomed).map((d) => d.id));
    this.tables.deliveries = this.tables.deliveries.filter((d) => !gone.has(d.id));
    this.tables.attempts = this.tables.attempts.filter((a) => !gone.has(a.deliveryId));
    return gone.size;
  }

  /** A webhook as the API makes one (active, of generation 1, for every run event unless told otherwise). */
  addWebhook(fields: Partial<WebhookEntity> = {}): WebhookEntity {
    const now = this.now();
    const webhook: WebhookEntity = {
      id: randomUUID(),
      agentId: randomUUID(),
      userId: randomUUID(),
      agentGeneration: '1',
      url: 'https://receiver.example.com/hook',
      events: ['run.started', 'run.completed', 'run.failed', 'run.stopped', 'run.paused'],
      status: 'active',
      secretSealed: 'sealed',
      consecutiveFailures: 0,
      lastSuccessAt: null,
      lastError: null,
      lastErrorAt: null,
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
      ...fields,
    };
    this.tables.webhooks.push(webhook);
    return webhook;
  }

  /** A pending delivery of the webhook, never attempted unless told otherwise. */
  addDelivery(webhookId: string, fields: Partial<DeliveryEntity> = {}): DeliveryEntity {
    const delivery: DeliveryEntity = {
      id: randomUUID(),
      webhookId,
      sourceEventId: `event-${randomUUID()}`,
      event: 'run.started',
      body: '{"event":"run.started"}',
      status: 'pending',
      test: false,
      attemptCount: 0,
      nextAttemptAt: null,
      pendingSince: null,
      chainRootId: null,
      chainDepth: null,
      runId: null,
      createdAt: this.now(),
      finishedAt: null,
      ...fields,
    };
    this.tables.deliveries.push(delivery);
    return delivery;
  }
}
