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
 * `limit` requests per fixed window for each key, counted in Redis so that every gateway replica
 * shares one allowance per key. Once a key is over, this replica refuses it from memory until the
 * window ends, so a client hammering past its limit costs no further Redis round trips.
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
}
