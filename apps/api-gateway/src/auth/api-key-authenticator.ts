import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  AgentsPatterns,
  AuthRedisKeys,
  VerifiedApiKey,
  hasOurFormat,
  hasValidChecksum,
  hashApiKey,
} from '@aas/contracts';
import { REDIS, RedisKeyspace } from '@aas/platform';
import { UnauthorizedError } from '@aas/problem-details';
import Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { GatewayEnv } from '../config/gateway.env';
import { ServiceClient } from '@aas/platform';
import { AuthenticatedCaller } from './caller';

const INVALID_KEY = 'The API key is invalid or has been revoked';
/** Every key (ours and a bootstrap key that can travel in a header) is printable ASCII. */
const KEY_CHARACTERS = /^[\x20-\x7e]+$/;
/** Last use is recorded at most this often per key. */
const USAGE_RECORD_INTERVAL_MS = 1000;

/**
 * Resolves an API key to its user. Verified keys are cached by hash; every
 * request still checks the revocation marker in Redis (one round trip, which
 * also records last use), so a revoked key fails on its next request on every
 * gateway replica without a database read per request.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly verified: LRUCache<string, AuthenticatedCaller>;
  private readonly lastRecorded: LRUCache<string, number>;

  constructor(
    config: ConfigService<GatewayEnv, true>,
    private readonly services: ServiceClient,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
  ) {
    const max = config.get('AUTH_CACHE_MAX_KEYS', { infer: true });
    const ttl = config.get('AUTH_CACHE_TTL_MS', { infer: true });
    this.verified = new LRUCache({ max, ttl: ttl || 1, ttlAutopurge: false });
    this.lastRecorded = new LRUCache({ max });
  }

  async authenticate(token: string, requestId: string): Promise<AuthenticatedCaller> {
    // Header bytes outside ASCII arrive as latin-1 characters: no key has them, and the checksum
    // comparison below works on the UTF-8 bytes, whose length would then differ (a 500 before this check).
    if (!KEY_CHARACTERS.test(token)) throw new UnauthorizedError(INVALID_KEY);
    // A key in our format with a bad checksum is a typo or a guess: no look-up needed.
    if (hasOurFormat(token) && !hasValidChecksum(token)) throw new UnauthorizedError(INVALID_KEY);
    const hash = hashApiKey(token);
    const caller = this.verified.get(hash) ?? (await this.verify(hash, requestId));
    if (await this.isRevokedRecordingUse(caller)) {
      this.verified.delete(hash);
      throw new UnauthorizedError(INVALID_KEY);
    }
    return caller;
  }

  private async verify(hash: string, requestId: string): Promise<AuthenticatedCaller> {
    const found = await this.services.request<VerifiedApiKey | null>(AgentsPatterns.VerifyApiKey, { key_hash: hash }, requestId);
    if (!found) throw new UnauthorizedError(INVALID_KEY);
    this.verified.set(hash, found);
    return found;
  }

  private async isRevokedRecordingUse(caller: AuthenticatedCaller): Promise<boolean> {
    const now = Date.now();
    const pipeline = this.redis.pipeline().exists(this.keyspace.key(...AuthRedisKeys.revokedKey(caller.key_id)));
    const last = this.lastRecorded.get(caller.key_id) ?? 0;
    if (now - last >= USAGE_RECORD_INTERVAL_MS) {
      pipeline.hset(this.keyspace.key(...AuthRedisKeys.lastUsed), caller.key_id, String(now));
      this.lastRecorded.set(caller.key_id, now);
    }
    const results = await pipeline.exec();
    const [error, revoked] = results?.[0] ?? [new Error('no reply from Redis'), 0];
    if (error) throw error;
    return revoked === 1;
  }
}
