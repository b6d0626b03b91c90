import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { REDIS, RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayEnv } from '../config/gateway.env';

/** What one request used of its key's allowance, for the RateLimit-* headers. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS for each API key, counted in
 * Redis so that every gateway replica shares one allowance per key.
 */
@Injectable()
export class ApiKeyRateLimiter {
  private readonly limiter?: RateLimiterRedis;
  readonly limit: number;

  constructor(
    config: ConfigService<GatewayEnv, true>,
    @Inject(REDIS) redis: Redis,
    keyspace: RedisKeyspace,
  ) {
    this.limit = config.get('RATE_LIMIT_REQUESTS', { infer: true });
    if (this.limit === 0) return;
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: keyspace.key('gateway', 'rate-limit'),
      points: this.limit,
      duration: config.get('RATE_LIMIT_WINDOW_SECONDS', { infer: true }),
    });
  }

  get enabled(): boolean {
    return this.limiter !== undefined;
  }

  async consume(keyId: string): Promise<RateLimitDecision> {
    const outcome = await this.limiter!.consume(keyId).catch((rejection: unknown) => {
      // The library rejects with its result when the allowance is used up, and with an Error when Redis fails.
      if (rejection instanceof RateLimiterRes) return rejection;
      throw rejection;
    });
    return {
      allowed: outcome.consumedPoints <= this.limit,
      limit: this.limit,
      remaining: outcome.remainingPoints,
      resetSeconds: Math.max(1, Math.ceil(outcome.msBeforeNext / 1000)),
    };
  }
}
