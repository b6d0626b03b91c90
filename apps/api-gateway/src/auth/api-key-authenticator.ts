import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  AgentsPatterns,
  AuthRedisKeys,
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
import { AuthenticatedCaller } from '../caller/caller';
import { RevocationStamp, RevocationState } from './revocation-state';

const INVALID_KEY = 'The API key is invalid or has been revoked';
/** Every key (ours and a bootstrap key that can travel in a header) is printable ASCII. */
const KEY_CHARACTERS = /^[\x20-\x7e]+$/;
/** Last use is recorded at most this often per key. */
const USAGE_RECORD_INTERVAL_MS = 1000;

/** A verified key; `trusted` is set once it was verified while revocations were being announced. */
interface VerifiedCaller {
  caller: AuthenticatedCaller;
  trusted?: RevocationStamp;
}

/**
 * Resolves an API key to its user. Verified keys are cached by hash. A cached
 * key is trusted without a round trip while the gateway listens to revocation
 * announcements (RevocationFeed), which drop the key from the cache; whenever
 * an announcement could have been missed, the key is verified again with
 * agents-service, whose database is the authority (a Redis marker can be lost
 * in a failover or an eviction), so a revoked key never passes on any replica
 * once the revocation has been answered.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  private readonly verified: LRUCache<string, VerifiedCaller>;
  private readonly lastRecorded: LRUCache<string, number>;

  constructor(
    config: ConfigService<GatewayEnv, true>,
    private readonly services: ServiceClient,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
    private readonly revocations: RevocationState,
  ) {
    const max = config.get('AUTH_CACHE_MAX_KEYS', { infer: true });
    const ttl = config.get('AUTH_CACHE_TTL_MS', { infer: true });
    this.verified = new LRUCache({ max, ttl: ttl || 1, ttlAutopurge: false });
    this.lastRecorded = new LRUCache({ max });
    revocations.onRevoked((keyId) => this.forget(keyId));
  }

  /** `beforeLookUp` runs (and may refuse, by throwing) only when the key must be looked up in agents-service. */
  async authenticate(token: string, requestId: string, beforeLookUp?: () => Promise<void>): Promise<AuthenticatedCaller> {
    // Header bytes outside ASCII arrive as latin-1 characters: no key has them, and the checksum
    // comparison below works on the UTF-8 bytes, whose length would then differ (a 500 before this check).
    if (!KEY_CHARACTERS.test(token)) throw new UnauthorizedError(INVALID_KEY);
    // A key in our format with a bad checksum is a typo or a guess: no look-up needed.
    if (hasOurFormat(token) && !hasValidChecksum(token)) throw new UnauthorizedError(INVALID_KEY);
    const hash = hashApiKey(token);
    const cached = this.verified.get(hash);
    if (cached?.trusted && this.revocations.stillValid(cached.trusted)) return this.used(cached.caller);
    const stamp = this.revocations.stamp();
    // A cached key was paid for once: asking again whether it is still valid costs its address nothing.
    const caller = await this.lookUp(hash, requestId, cached ? undefined : beforeLookUp).catch((error: unknown) => {
      if (error instanceof UnauthorizedError) this.verified.delete(hash);
      throw error;
    });
    // A revocation announced while this check ran may be this key's: then it is checked again next time.
    const trusted = this.revocations.trustworthy(stamp) ? stamp : undefined;
    this.verified.set(hash, { caller, trusted });
    return this.used(caller);
  }

  /** Whether the key with this hash is still valid, asked of agents-service (for open event streams). */
  async stillValid(keyHash: string, requestId: string): Promise<boolean> {
    const found = await this.services.request(AgentsPatterns.VerifyApiKey, { key_hash: keyHash }, requestId);
    if (!found) this.verified.delete(keyHash);
    return found !== null;
  }

  private async lookUp(hash: string, requestId: string, beforeLookUp?: () => Promise<void>): Promise<AuthenticatedCaller> {
    await beforeLookUp?.();
    const found = await this.services.request(AgentsPatterns.VerifyApiKey, { key_hash: hash }, requestId);
    if (!found) throw new UnauthorizedError(INVALID_KEY);
    return found;
  }

  private forget(keyId: string): void {
    const hashes = [...this.verified.entries()].filter(([, entry]) => entry.caller.key_id === keyId).map(([hash]) => hash);
    for (const hash of hashes) this.verified.delete(hash);
  }

  /** Records the key's last use in Redis, at most once a second per key, without waiting for it. */
  private used(caller: AuthenticatedCaller): AuthenticatedCaller {
    const now = Date.now();
    if (now - (this.lastRecorded.get(caller.key_id) ?? 0) >= USAGE_RECORD_INTERVAL_MS) {
      this.lastRecorded.set(caller.key_id, now);
      this.redis
        .hset(this.keyspace.key(...AuthRedisKeys.lastUsed), caller.key_id, String(now))
        .catch((error: Error) => this.logger.warn(`could not record the use of key ${caller.key_id}: ${error.message}`));
    }
    return caller;
  }
}
