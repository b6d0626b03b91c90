import { randomUUID } from 'node:crypto';
import { DeliveryAttemptEntity } from '../database/delivery-attempt.entity';
import { DeliveryEntity, DeliveryStatus } from '../database/delivery.entity';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { DeliveryHistoryStore, DeliveryPage, ScheduledDelivery } from './delivery-history.store';

/** Delivery history in memory (database/in-memory-database.fake.ts); left out of the build. */
export class FakeDeliveryHistoryStore implements DeliveryHistoryStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async page(webhookId: string, offset: number, limit: number, status?: DeliveryStatus): Promise<DeliveryPage> {
    // Rows are kept in the order they were written: newest first is that order reversed.
    const all = this.db.tables.deliveries.filter((d) => d.webhookId === webhookId && (!status || d.status === status)).reverse();
    return { deliveries: all.slice(offset, offset + limit).map((d) => ({ ...d })), total: all.length };
  }

  async attemptsOf(deliveryIds: string[]): Promise<DeliveryAttemptEntity[]> {
    return this.db.tables.attempts
      .filter((a) => deliveryIds.includes(a.deliveryId))
      .sort((a, b) => a.attempt - b.attempt)
      .map((a) => ({ ...a }));
  }

  async find(webhookId: string, deliveryId: string): Promise<DeliveryEntity | null> {
    const delivery = this.db.tables.deliveries.find((d) => d.id === deliveryId && d.webhookId === webhookId);
    return delivery ? { ...delivery } : null;
  }

  async markPending(deliveryId: string, at: Date): Promise<void> {
    const delivery = this.db.tables.deliveries.find((d) => d.id === deliveryId);
    if (delivery) Object.assign(delivery, { status: 'pending', finishedAt: null, nextAttemptAt: at, pendingSince: at });
  }

  async insertTest(webhookId: string, event: string, body: string): Promise<DeliveryEntity> {
    return { ...this.db.addDelivery(webhookId, { sourceEventId: `test:${randomUUID()}`, event, body, test: true, pendingSince: this.db.now() }) };
  }

  async failedSince(webhookId: string, since: Date, limit: number): Promise<string[]> {
    return this.db.tables.deliveries
      .filter((d) => d.webhookId === webhookId && d.status === 'failed' && !d.test && d.createdAt >= since)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, limit)
      .map((d) => d.id);
  }

  async markFailedPending(deliveries: ScheduledDelivery[]): Promise<string[]> {
    const flipped: string[] = [];
    for (const { id, at } of deliveries) {
      const delivery = this.db.tables.deliveries.find((d) => d.id === id && d.status === 'failed');
      if (!delivery) continue;
      Object.assign(delivery, { status: 'pending', finishedAt: null, nextAttemptAt: at, pendingSince: at });
      flipped.push(id);
    }
    return flipped;
  }
}
