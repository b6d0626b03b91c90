import Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/** What one request used of an allowance, for the RateLimit-* headers. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * `limit` requests per fixed window for each key, counted in Redis so that every replica (of the
 * gateway, or of a service) shares one allowance per key. Once a key is over, this replica refuses it
 * from memory until the window ends, so a client hammering past its limit costs no further Redis
 * round trips.
 */
export class WindowRateLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: Redis,
    keyPrefix: string,
    readonly limit: number,
    windowSeconds: number,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix,
      points: limit,
      duration: windowSeconds,
      inMemoryBlockOnConsumed: limit + 1,
    });
  }

  /**
   * Milliseconds until the window ends for a key this replica has seen over its allowance; 0 otherwise.
   * Asks nothing of Redis: a key over on another replica is found out by its next `consume` here.
   */
  blockedForMs(key: string): number {
    // A public method of the library that its type declarations leave out.
    const limiter = this.limiter as unknown as { getInMemoryBlockMsBeforeExpire(rlKey: string): number };
    return limiter.getInMemoryBlockMsBeforeExpire(this.limiter.getKey(key));
  }

  async consume(key: string): Promise<RateLimitDecision> {
    let outcome: RateLimiterRes;
    let allowed = true;
    try {
      outcome = await this.limiter.consume(key);
    } catch (rejection) {
      // The library rejects with its result when the allowance is used up (also from its in-memory block,
      // whose result counts no points), and with an Error when Redis fails.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      outcome = rejection;
      allowed = false;
    }
    return {
      allowed,
      limit: this.limit,
      remaining: allowed ? outcome.remainingPoints : 0,
      resetSeconds: Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)),
    };
  }

  /** Gives back one request that `consume` counted (it turned out to belong to an allowance of its own). */
  async refund(key: string): Promise<void> {
    await this.limiter.reward(key, 1);
  }
}
