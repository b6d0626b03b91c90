import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { hashToken } from '@aas/contracts';
import { REDIS, RedisKeyspace } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayEnv } from '../config/gateway.env';

const TOO_MANY = 'Too many sign-in attempts; wait before trying again';

/**
 * Brute-force limits on sign-in and first-run setup, counted in Redis across
 * gateway replicas: attempts per client address, and sign-in attempts per email
 * (by its hash, so no address is stored). The answer is the same whether the
 * email exists or not.
 */
@Injectable()
export class LoginRateLimiter {
  private readonly byAddress?: RateLimiterRedis;
  private readonly byEmail?: RateLimiterRedis;

  constructor(config: ConfigService<GatewayEnv, true>, @Inject(REDIS) redis: Redis, keyspace: RedisKeyspace) {
    const duration = config.get('LOGIN_RATE_LIMIT_WINDOW_SECONDS', { infer: true });
    const perAddress = config.get('LOGIN_RATE_LIMIT_PER_ADDRESS', { infer: true });
    const perEmail = config.get('LOGIN_RATE_LIMIT_PER_EMAIL', { infer: true });
    const limiter = (name: string, points: number) =>
      points > 0 ? new RateLimiterRedis({ storeClient: redis, keyPrefix: keyspace.key('gateway', 'login-limit', name), points, duration }) : undefined;
    this.byAddress = limiter('address', perAddress);
    this.byEmail = limiter('email', perEmail);
  }

  /** Counts one setup attempt from `address`; a 429 once over the limit. */
  async setupAttempt(address: string): Promise<void> {
    await this.consume(this.byAddress, address);
  }

  /** Counts one sign-in attempt from `address` for `email`; a 429 once either is over its limit. */
  async loginAttempt(address: string, email: string): Promise<void> {
    await this.consume(this.byAddress, address);
    await this.consume(this.byEmail, emailKey(email));
  }

  /** A successful sign-in clears its email's count (the address keeps its count). */
  async succeeded(email: string): Promise<void> {
    await this.byEmail?.delete(emailKey(email));
  }

  private async consume(limiter: RateLimiterRedis | undefined, key: string): Promise<void> {
    if (!limiter) return;
    try {
      await limiter.consume(key);
    } catch (rejection) {
      // The library rejects with its result when the allowance is used up, and with an Error when Redis fails.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw new TooManyRequestsError(TOO_MANY, Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
    }
  }
}

function emailKey(email: string): string {
  return hashToken(email.trim().toLowerCase());
}
