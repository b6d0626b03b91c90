import { Inject, Injectable } from '@nestjs/common';
import { AuthRedisKeys, REVOCATION_MARKER_TTL_SECONDS } from '@aas/contracts';
import { REDIS, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';

/** A taken batch of last-use times lives this long if its flush dies before deleting it. */
const TAKEN_USAGE_TTL_SECONDS = 3600;

/**
 * Moves the gateways' last-use hash aside (so it starts again empty) and answers what it held.
 * KEYS: the hash, the key it moves to; ARGV: that key's lifetime in seconds.
 */
const TAKE_USAGE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
redis.call('RENAME', KEYS[1], KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[1])
return redis.call('HGETALL', KEYS[2])`;

/** Puts times back into the hash without moving any newer one backwards. ARGV: key id, time, key id, time, … */
const RETURN_USAGE = `
for i = 1, #ARGV, 2 do
  local now = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0')
  if tonumber(ARGV[i + 1]) > now then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 0`;

/** The Redis side of revocation: markers the gateways check, and an announcement of each revocation. */
@Injectable()
export class KeyRevocationRegistry {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
  ) {}

  /**
   * The marker first (gateways of earlier versions check it), then the announcement. Gateways of this
   * version trust neither alone: a key whose state they cannot vouch for is verified with agents-service.
   */
  async markRevoked(keyId: string): Promise<void> {
    await this.redis.set(this.keyspace.key(...AuthRedisKeys.revokedKey(keyId)), '1', 'EX', REVOCATION_MARKER_TTL_SECONDS);
    await this.redis.publish(this.keyspace.key(...AuthRedisKeys.revocations), keyId);
  }

  async clear(keyId: string): Promise<void> {
    await this.redis.del(this.keyspace.key(...AuthRedisKeys.revokedKey(keyId)));
  }

  /** Last-use times (epoch ms) the gateways recorded since the last flush, for these keys. */
  async lastUsedTimes(keyIds: string[]): Promise<Map<string, number>> {
    if (keyIds.length === 0) return new Map();
    const values = await this.redis.hmget(this.keyspace.key(...AuthRedisKeys.lastUsed), ...keyIds);
    return new Map(keyIds.flatMap((id, i) => (values[i] ? [[id, Number(values[i])] as const] : [])));
  }

  /**
   * Takes every recorded time out of Redis: the hash is moved aside in one step, so it holds only the
   * keys used since the last flush and never grows past one interval's worth. `write` stores them;
   * if it fails they go back into the hash (newer times win) for the next flush.
   */
  async flushLastUsed(write: (times: Map<string, number>) => Promise<void>): Promise<number> {
    const hash = this.keyspace.key(...AuthRedisKeys.lastUsed);
    const taken = this.keyspace.key(...AuthRedisKeys.lastUsed, 'flushing', randomUUID());
    const flat = (await this.redis.eval(TAKE_USAGE, 2, hash, taken, TAKEN_USAGE_TTL_SECONDS)) as string[];
    if (flat.length === 0) return 0;
    const times = new Map<string, number>();
    for (let i = 0; i < flat.length; i += 2) times.set(flat[i], Number(flat[i + 1]));
    try {
      await write(times);
    } catch (error) {
      await this.redis.eval(RETURN_USAGE, 1, hash, ...flat);
      throw error;
    } finally {
      await this.redis.del(taken);
    }
    return times.size;
  }
}
