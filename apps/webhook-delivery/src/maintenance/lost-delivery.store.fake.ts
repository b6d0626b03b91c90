import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { LostDeliveryStore, SWEEP_START, SweepPosition } from './lost-delivery.store';

/**
 * The sweep's read in memory (database/in-memory-database.fake.ts); left out of the build. A position's
 * due time is an ISO string here (PostgreSQL's text form sorts the same way within one store).
 */
export class FakeLostDeliveryStore implements LostDeliveryStore {
  constructor(private readonly db: InMemoryDatabase) {}

  async overdue(after: SweepPosition, marginMs: number, limit: number): Promise<SweepPosition[]> {
    const before = this.db.now().getTime() - marginMs;
    const from = after.due === SWEEP_START.due ? -Infinity : Date.parse(after.due);
    return this.db.tables.deliveries
      .map((d) => ({ id: d.id, status: d.status, at: (d.nextAttemptAt ?? d.createdAt).getTime() }))
      .filter((d) => d.status === 'pending' && d.at < before && (d.at > from || (d.at === from && d.id > after.id)))
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, limit)
      .map((d) => ({ id: d.id, due: new Date(d.at).toISOString() }));
  }
}
