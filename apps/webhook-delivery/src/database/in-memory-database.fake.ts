import { randomUUID } from 'node:crypto';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';
import { WebhookEntity } from './webhook.entity';
import { Transaction, Transactions } from '@aas/platform';

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
 * The webhooks schema in memory, for unit tests of the services with the stores' fakes
 * (`*.store.fake.ts`): what the fakes read and write, a clock the tests can move (PostgreSQL's
 * now() for the fakes), and transactions that roll back what their work wrote when it throws.
 * Rows are kept in the order they were written, which stands in for PostgreSQL's microsecond
 * timestamps where two rows of one millisecond are ordered by time.
 */
export class InMemoryDatabase {
  tables = emptyTables();
  readonly transactions = new FakeTransactions(this);
  private clockOffsetMs = 0;
  private live = new Set<Transaction>();

  /** The database's clock. */
  now(): Date {
    return new Date(Date.now() + this.clockOffsetMs);
  }

  advanceClock(ms: number): void {
    this.clockOffsetMs += ms;
  }

  /** A statement that must run in a transaction: refuses one that has ended (or never began). */
  inTransaction(tx: Transaction): void {
    if (!this.live.has(tx)) throw new Error('a statement ran outside its transaction');
  }

  async transaction<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    const before = structuredClone(this.tables);
    const tx = { id: randomUUID() } as unknown as Transaction;
    this.live.add(tx);
    try {
      return await work(tx);
    } catch (error) {
      this.tables = before;
      throw error;
    } finally {
      this.live.delete(tx);
    }
  }

  /** Deletes the webhooks `doomed` picks, and with them their deliveries and attempts (ON DELETE CASCADE). */
  deleteWebhooks(doomed: (webhook: WebhookEntity) => boolean): void {
    const gone = new Set(this.tables.webhooks.filter(doomed).map((w) => w.id));
    this.tables.webhooks = this.tables.webhooks.filter((w) => !gone.has(w.id));
    const deliveries = new Set(this.tables.deliveries.filter((d) => gone.has(d.webhookId)).map((d) => d.id));
    this.tables.deliveries = this.tables.deliveries.filter((d) => !deliveries.has(d.id));
    this.tables.attempts = this.tables.attempts.filter((a) => !deliveries.has(a.deliveryId));
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
      attemptCount: 0,
      nextAttemptAt: null,
      pendingSince: null,
      createdAt: this.now(),
      finishedAt: null,
      ...fields,
    };
    this.tables.deliveries.push(delivery);
    return delivery;
  }
}

export class FakeTransactions implements Transactions {
  constructor(private readonly db: InMemoryDatabase) {}

  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }
}
