import { Inject, Injectable } from '@nestjs/common';
import { AuthRedisKeys, REVOCATION_MARKER_TTL_SECONDS } from '@aas/contracts';
import { REDIS, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';

/** The Redis side of revocation: markers the gateways check, and an announcement of each revocation. */
@Injectable()
export class KeyRevocationRegistry {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
  ) {}

  /** The marker first: a gateway that misses the announcement still finds it. */
  async markRevoked(keyId: string): Promise<void> {
    await this.redis.set(this.keyspace.key(...AuthRedisKeys.revokedKey(keyId)), '1', 'EX', REVOCATION_MARKER_TTL_SECONDS);
    await this.redis.publish(this.keyspace.key(...AuthRedisKeys.revocations), keyId);
  }

  async clear(keyId: string): Promise<void> {
    await this.redis.del(this.keyspace.key(...AuthRedisKeys.revokedKey(keyId)));
  }

  /** Last-use times (epoch ms) the gateways recorded, by key id. */
  async lastUsedTimes(keyIds?: string[]): Promise<Map<string, number>> {
    const hash = this.keyspace.key(...AuthRedisKeys.lastUsed);
    if (keyIds) {
      if (keyIds.length === 0) return new Map();
      const values = await this.redis.hmget(hash, ...keyIds);
      return new Map(keyIds.flatMap((id, i) => (values[i] ? [[id, Number(values[i])] as const] : [])));
    }
    const all = await this.redis.hgetall(hash);
    return new Map(Object.entries(all).map(([id, ms]) => [id, Number(ms)]));
  }

  async forgetLastUsed(keyIds: string[]): Promise<void> {
    if (keyIds.length > 0) await this.redis.hdel(this.keyspace.key(...AuthRedisKeys.lastUsed), ...keyIds);
  }
}
