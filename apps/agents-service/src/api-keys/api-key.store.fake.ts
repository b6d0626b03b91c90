import { randomUUID } from 'node:crypto';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { ApiKeyEntity } from '../database/api-key.entity';
import { ApiKeyStore, NewApiKey } from './api-key.store';
import { Transaction } from '@aas/platform';

export class FakeApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: InMemoryDatabase) {}

  private get keys(): ApiKeyEntity[] {
    return this.db.tables.apiKeys;
  }

  async listActive(userId: string): Promise<ApiKeyEntity[]> {
    return this.keys
      .filter((k) => k.userId === userId && k.revokedAt === null)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id))
      .map((k) => ({ ...k }));
  }

  async lockCreatingSession(tx: Transaction, sessionId: string): Promise<boolean> {
    this.db.inTransaction(tx);
    return this.db.tables.sessions.some((s) => s.id === sessionId);
  }

  async insert(tx: Transaction, key: NewApiKey): Promise<ApiKeyEntity> {
    this.db.inTransaction(tx);
    if (this.keys.some((k) => k.keyHash === key.keyHash)) throw new Error('duplicate key_hash');
    const { createdBySessionId, ...fields } = key;
    const row: ApiKeyEntity = {
      id: randomUUID(),
      ...fields,
      createdAt: new Date(this.db.now()),
      lastUsedAt: null,
      revokedAt: null,
      createdBySessionId: createdBySessionId ?? null,
    };
    this.keys.push(row);
    return { ...row };
  }

  async listMadeBySessionsSince(userId: string, since: Date | null): Promise<ApiKeyEntity[]> {
    const made = await this.listActive(userId);
    return made.filter((k) => k.createdBySessionId !== null && (since === null || k.createdAt.getTime() > since.getTime()));
  }

  async findActive(keyId: string, userId?: string): Promise<ApiKeyEntity | null> {
    const key = this.keys.find((k) => k.id === keyId && (userId === undefined || k.userId === userId) && k.revokedAt === null);
    return key ? { ...key } : null;
  }

  async setRevoked(keyId: string, at: Date): Promise<void> {
    for (const key of this.keys) if (key.id === keyId) key.revokedAt = at;
  }

  async findActiveByHash(keyHash: string): Promise<{ id: string; userId: string } | null> {
    const key = this.keys.find((k) => k.keyHash === keyHash && k.revokedAt === null);
    return key ? { id: key.id, userId: key.userId } : null;
  }

  async upsertActive(key: NewApiKey): Promise<string> {
    const existing = this.keys.find((k) => k.keyHash === key.keyHash);
    if (existing) {
      existing.revokedAt = null;
      return existing.id;
    }
    return (await this.db.transaction((tx) => this.insert(tx, key))).id;
  }

  async recordLastUse(times: Map<string, number>): Promise<void> {
    for (const key of this.keys) {
      const ms = times.get(key.id);
      if (ms !== undefined && ms > (key.lastUsedAt?.getTime() ?? 0)) key.lastUsedAt = new Date(ms);
    }
  }
}
