import { Injectable } from '@nestjs/common';
import {
  ApiKeyInfo,
  CreatedApiKey,
  VerifiedApiKey,
  displayPrefixOf,
  generateApiKey,
  hashApiKey,
} from '@aas/contracts';
import { ResourceNotFoundError, UnauthorizedError } from '@aas/problem-details';
import { isUuid } from '../common/is-uuid';
import { USER_QUOTAS, UserQuotas } from '../quotas/user-quotas';
import { ApiKeyEntity } from '../database/api-key.entity';
import { ApiKeyStore } from './api-key.store';
import { KeyRevocationRegistry } from './key-revocation.registry';
import { Transactions } from '@aas/platform';

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly transactions: Transactions,
    private readonly revocations: KeyRevocationRegistry,
    private readonly quotas: UserQuotas,
  ) {}

  /** Active keys, oldest first; last use is the later of the stored time and the gateways' record in Redis. */
  async list(userId: string): Promise<ApiKeyInfo[]> {
    const keys = await this.keys.listActive(userId);
    const recent = await this.revocations.lastUsedTimes(keys.map((k) => k.id));
    return keys.map((key) => toInfo(key, recent.get(key.id)));
  }

  /**
   * At most QUOTA_API_KEYS_PER_USER active keys per user. A key a console session asks for records
   * that session, which must still exist when the key is stored: a password reset that ends it
   * first leaves no key behind, one that ends it after lists the key.
   */
  async create(userId: string, name: string, sessionId?: string): Promise<CreatedApiKey> {
    const { token, displayPrefix } = generateApiKey();
    const key = await this.transactions.run(async (tx) => {
      if (sessionId !== undefined && !(await this.keys.lockCreatingSession(tx, sessionId))) {
        throw new UnauthorizedError('The console session has ended; sign in again');
      }
      await this.quotas.reserve(tx, userId, USER_QUOTAS.apiKeys);
      return this.keys.insert(tx, { userId, name, keyHash: hashApiKey(token), displayPrefix, createdBySessionId: sessionId });
    });
    return {
      key_id: key.id,
      name: key.name,
      api_key: token,
      display_prefix: key.displayPrefix,
      created_at: key.createdAt.getTime(),
    };
  }

  /**
   * The Redis marker is set before the row changes, so no gateway can accept
   * the key once the caller has been told it is revoked. A revoked key no
   * longer exists for its owner: revoking it again is a 404.
   */
  async revoke(userId: string, keyId: string): Promise<{ revoked: boolean }> {
    return this.revokeOf(keyId, userId);
  }

  /** The admin command line's revoke: any user's key. */
  async revokeAnyUsersKey(keyId: string): Promise<{ revoked: boolean }> {
    return this.revokeOf(keyId, undefined);
  }

  private async revokeOf(keyId: string, userId: string | undefined): Promise<{ revoked: boolean }> {
    const key = isUuid(keyId) ? await this.keys.findActive(keyId, userId) : null;
    if (!key) throw new ResourceNotFoundError('API key', keyId);
    await this.revocations.markRevoked(key.id);
    await this.keys.setRevoked(key.id, new Date());
    return { revoked: true };
  }

  /** The user's active keys that console sessions made after `since` (every one when null), oldest first. */
  async madeBySessionsSince(userId: string, since: Date | null): Promise<ApiKeyEntity[]> {
    return this.keys.listMadeBySessionsSince(userId, since);
  }

  async verify(keyHash: string): Promise<VerifiedApiKey | null> {
    const key = await this.keys.findActiveByHash(keyHash);
    return key ? { user_id: key.userId, key_id: key.id } : null;
  }

  /** Makes `token` a valid key of `userId` (reviving it if it was revoked); idempotent across replicas. */
  async ensureKey(userId: string, token: string, name: string): Promise<string> {
    const keyId = await this.keys.upsertActive({ userId, name, keyHash: hashApiKey(token), displayPrefix: displayPrefixOf(token) });
    await this.revocations.clear(keyId);
    return keyId;
  }

  /**
   * Writes the gateways' last-use times to PostgreSQL and removes them from Redis; never moves a time
   * backwards, so replicas may run it at once (each takes a different batch).
   */
  async flushUsage(): Promise<number> {
    return this.revocations.flushLastUsed((times) => this.keys.recordLastUse(times));
  }
}

function toInfo(key: ApiKeyEntity, recentMs: number | undefined): ApiKeyInfo {
  const storedMs = key.lastUsedAt?.getTime();
  const lastUsed = Math.max(storedMs ?? 0, recentMs ?? 0);
  return {
    key_id: key.id,
    name: key.name,
    display_prefix: key.displayPrefix,
    created_at: key.createdAt.getTime(),
    last_used_at: lastUsed > 0 ? lastUsed : null,
  };
}
