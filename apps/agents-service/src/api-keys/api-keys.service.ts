import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  ApiKeyInfo,
  CreatedApiKey,
  VerifiedApiKey,
  displayPrefixOf,
  generateApiKey,
  hashApiKey,
} from '@aas/contracts';
import { ResourceNotFoundError } from '@aas/problem-details';
import { IsNull, Repository } from 'typeorm';
import { USER_QUOTAS, UserQuotas } from '../quotas/user-quotas';
import { isUuid } from '../common/is-uuid';
import { ApiKeyEntity } from './api-key.entity';
import { KeyRevocationRegistry } from './key-revocation.registry';

@Injectable()
export class ApiKeysService {
  constructor(
    @InjectRepository(ApiKeyEntity) private readonly keys: Repository<ApiKeyEntity>,
    private readonly revocations: KeyRevocationRegistry,
    private readonly quotas: UserQuotas,
  ) {}

  /** Active keys, oldest first; last use is the later of the stored time and the gateways' record in Redis. */
  async list(userId: string): Promise<ApiKeyInfo[]> {
    const keys = await this.keys.find({
      where: { userId, revokedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    const recent = await this.revocations.lastUsedTimes(keys.map((k) => k.id));
    return keys.map((key) => toInfo(key, recent.get(key.id)));
  }

  /** At most QUOTA_API_KEYS_PER_USER active keys per user. */
  async create(userId: string, name: string): Promise<CreatedApiKey> {
    const { token, displayPrefix } = generateApiKey();
    const key = await this.keys.manager.transaction(async (manager) => {
      await this.quotas.reserve(manager, userId, USER_QUOTAS.apiKeys);
      return manager.save(
        manager.create(ApiKeyEntity, { userId, name, keyHash: hashApiKey(token), displayPrefix, lastUsedAt: null, revokedAt: null }),
      );
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
    return this.revokeWhere(keyId, { userId });
  }

  /** The admin command line's revoke: any user's key. */
  async revokeAnyUsersKey(keyId: string): Promise<{ revoked: boolean }> {
    return this.revokeWhere(keyId, {});
  }

  private async revokeWhere(keyId: string, owner: { userId?: string }): Promise<{ revoked: boolean }> {
    const key = isUuid(keyId) ? await this.keys.findOneBy({ id: keyId, ...owner, revokedAt: IsNull() }) : null;
    if (!key) throw new ResourceNotFoundError('API key', keyId);
    await this.revocations.markRevoked(key.id);
    await this.keys.update({ id: key.id }, { revokedAt: new Date() });
    return { revoked: true };
  }

  async verify(keyHash: string): Promise<VerifiedApiKey | null> {
    const key = await this.keys.findOneBy({ keyHash, revokedAt: IsNull() });
    return key ? { user_id: key.userId, key_id: key.id } : null;
  }

  /** Makes `token` a valid key of `userId` (reviving it if it was revoked); idempotent across replicas. */
  async ensureKey(userId: string, token: string, name: string): Promise<string> {
    const rows: { id: string }[] = await this.keys.query(
      `INSERT INTO api_keys (user_id, name, key_hash, display_prefix)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (key_hash) DO UPDATE SET revoked_at = NULL
       RETURNING id`,
      [userId, name, hashApiKey(token), displayPrefixOf(token)],
    );
    await this.revocations.clear(rows[0].id);
    return rows[0].id;
  }

  /**
   * Writes the gateways' last-use times to PostgreSQL and removes them from Redis; never moves a time
   * backwards, so replicas may run it at once (each takes a different batch).
   */
  async flushUsage(): Promise<number> {
    return this.revocations.flushLastUsed(async (times) => {
      await this.keys.query(
        `UPDATE api_keys k
           SET last_used_at = GREATEST(COALESCE(k.last_used_at, 'epoch'::timestamptz), to_timestamp(v.ms / 1000.0))
          FROM unnest($1::uuid[], $2::float8[]) AS v(id, ms)
         WHERE k.id = v.id`,
        [[...times.keys()], [...times.values()]],
      );
    });
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
