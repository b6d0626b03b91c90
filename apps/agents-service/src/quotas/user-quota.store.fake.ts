import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { QuotaCounted, UserQuotaStore } from './user-quota.store';
import { Transaction } from '@aas/platform';

export class FakeUserQuotaStore implements UserQuotaStore {
  /** The users whose row a transaction locked, in order. */
  readonly locked: string[] = [];

  constructor(private readonly db: InMemoryDatabase) {}

  async lockUser(tx: Transaction, userId: string): Promise<void> {
    this.db.inTransaction(tx);
    this.locked.push(userId);
  }

  async countHeld(tx: Transaction, userId: string, counted: QuotaCounted, limit: number): Promise<number> {
    this.db.inTransaction(tx);
    const { apiKeys, agents, workspaces } = this.db.tables;
    const held = {
      activeApiKeys: apiKeys.filter((k) => k.userId === userId && k.revokedAt === null).length,
      agents: agents.filter((a) => a.userId === userId).length,
      workspaces: workspaces.filter((w) => w.userId === userId).length,
    }[counted];
    return Math.min(held, limit);
  }
}
