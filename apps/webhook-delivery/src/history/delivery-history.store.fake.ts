import { DeliveryAttemptEntity } from '../database/delivery-attempt.entity';
import { DeliveryEntity } from '../database/delivery.entity';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { DeliveryHistoryStore, DeliveryPage } from './delivery-history.store';

/** Delivery history in memory (database/in-memory-database.fake.ts); left out of the build. */
export class FakeDeliveryHistoryStore implements DeliveryHistoryStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async page(webhookId: string, offset: number, limit: number): Promise<DeliveryPage> {
    // Rows are kept in the order they were written: newest first is that order reversed.
    const all = this.db.tables.deliveries.filter((d) => d.webhookId === webhookId).reverse();
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
}
