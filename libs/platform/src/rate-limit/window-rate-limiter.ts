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
    await this.giveBack(key, 1);
  }

  /**
   * Takes up to `wanted` of the key's allowance in one call, for work that comes in batches (the
   * runs of one event): answers how many were granted, the first ones of the batch, and the seconds
   * until the window resets. The points past the allowance are counted too, but the window is used
   * up then anyway.
   */
  async take(key: string, wanted: number): Promise<{ granted: number; resetSeconds: number }> {
    if (wanted <= 0) return { granted: 0, resetSeconds: 0 };
    try {
      const outcome = await this.limiter.consume(key, wanted);
      return { granted: wanted, resetSeconds: secondsOf(outcome) };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      // From the in-memory block the result counts no points: nothing is left.
      const before = rejection.consumedPoints - wanted;
      const granted = rejection.consumedPoints < wanted ? 0 : Math.min(wanted, Math.max(0, this.limit - before));
      return { granted, resetSeconds: secondsOf(rejection) };
    }
  }

  /** What is left of the key's allowance in the current window, without taking any. */
  async left(key: string): Promise<{ remaining: number; resetSeconds: number }> {
    const state = await this.limiter.get(key);
    if (!state) return { remaining: this.limit, resetSeconds: 0 };
    return { remaining: Math.max(0, this.limit - state.consumedPoints), resetSeconds: secondsOf(state) };
  }

  /** Gives back points taken for work that was then not done. */
  async giveBack(key: string, points: number): Promise<void> {
    if (points > 0) await this.limiter.reward(key, points);
  }
}

function secondsOf(outcome: RateLimiterRes): number {
  return Math.max(1, Math.ceil(outcome.msBeforeNext / 1000));
}
