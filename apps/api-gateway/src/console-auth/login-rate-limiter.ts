import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { hashToken } from '@aas/contracts';
import { REDIS, RedisKeyspace } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { GatewayEnv } from '../config/gateway.env';
import { addressKey } from '../rate-limit/client-address';

const TOO_MANY = 'Too many sign-in attempts; wait before trying again';

/** One sign-in or setup attempt that passed the limits: say how it ended. */
export interface LoginAttempt {
  succeeded(): Promise<void>;
  failed(): Promise<void>;
}

/**
 * Brute-force limits on sign-in and first-run setup, counted in Redis across gateway replicas, that
 * only ever hold back the address that fails (IPv6 by /64, as the rate limiter keys it): a correct
 * password from an address without recent failures always passes, whatever other addresses did to
 * that email. Failures of an address slow it down (LOGIN_FAILURES_PER_MINUTE) and then refuse it
 * for the window (LOGIN_RATE_LIMIT_PER_ADDRESS). Once an email has failed LOGIN_RATE_LIMIT_PER_EMAIL
 * times from all addresses together, an address that has failed for it is refused for it, so a
 * spread-out guesser gets one guess per address and window. Every attempt reserves one failure of
 * its address first (so attempts sent at once cannot pass the limit together, and a refused one
 * counts), given back when it succeeds. Emails are keyed by their hash; answers are the same
 * whether the email exists or not.
 */
@Injectable()
export class LoginRateLimiter {
  private readonly addressPerMinute?: RateLimiterRedis;
  private readonly addressPerWindow?: RateLimiterRedis;
  private readonly email?: RateLimiterRedis;
  private readonly addressAndEmail?: RateLimiterRedis;

  constructor(config: ConfigService<GatewayEnv, true>, @Inject(REDIS) redis: Redis, keyspace: RedisKeyspace) {
    const window = config.get('LOGIN_RATE_LIMIT_WINDOW_SECONDS', { infer: true });
    // Over a limit, this replica refuses from memory until the window ends: refusals cost no Redis round trip.
    const limiter = (name: string, points: number, duration: number) =>
      points > 0
        ? new RateLimiterRedis({
            storeClient: redis,
            keyPrefix: keyspace.key('gateway', 'login-limit', name),
            points,
            duration,
            inMemoryBlockOnConsumed: points + 1,
          })
        : undefined;
    this.addressPerMinute = limiter('address-minute', config.get('LOGIN_FAILURES_PER_MINUTE', { infer: true }), 60);
    this.addressPerWindow = limiter('address', config.get('LOGIN_RATE_LIMIT_PER_ADDRESS', { infer: true }), window);
    const perEmail = config.get('LOGIN_RATE_LIMIT_PER_EMAIL', { infer: true });
    this.email = limiter('email', perEmail, window);
    // Only whether an address has failed for an email matters: one point, counted past it.
    this.addressAndEmail = limiter('address-email', perEmail > 0 ? 1 : 0, window);
  }

  /** A sign-in attempt from `ip` for `email`; a 429 with Retry-After when the address may not try now. */
  async signIn(ip: string, email: string): Promise<LoginAttempt> {
    const address = addressKey(ip);
    const emailHash = emailKey(email);
    const pair = `${address}|${emailHash}`;
    await this.reserve(address);
    await this.refuseIfFailedForTargetedEmail(emailHash, pair);
    return {
      succeeded: async () => {
        await this.giveBack(address);
        await this.addressAndEmail?.delete(pair);
      },
      failed: async () => {
        await this.email?.penalty(emailHash);
        await this.addressAndEmail?.penalty(pair);
      },
    };
  }

  /** A first-run setup attempt from `ip`: a wrong setup token is a failure of its address. */
  async setup(ip: string): Promise<LoginAttempt> {
    const address = addressKey(ip);
    await this.reserve(address);
    return { succeeded: () => this.giveBack(address), failed: async () => undefined };
  }

  private async refuseIfFailedForTargetedEmail(emailHash: string, pair: string): Promise<void> {
    if (!this.email || !this.addressAndEmail) return;
    const [email, mine] = await Promise.all([this.email.get(emailHash), this.addressAndEmail.get(pair)]);
    if (email && mine && email.consumedPoints >= this.email.points && mine.consumedPoints >= 1) throw tooMany(mine);
  }

  /** One failure of the address, counted before the attempt; a 429 once the minute's or the window's are used up. */
  private async reserve(address: string): Promise<void> {
    for (const limiter of [this.addressPerMinute, this.addressPerWindow]) {
      try {
        await limiter?.consume(address);
      } catch (rejection) {
        // The library rejects with its result when the allowance is used up, and with an Error when Redis fails.
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        throw tooMany(rejection);
      }
    }
  }

  private async giveBack(address: string): Promise<void> {
    await this.addressPerMinute?.reward(address);
    await this.addressPerWindow?.reward(address);
  }
}

function tooMany(result: RateLimiterRes): TooManyRequestsError {
  return new TooManyRequestsError(TOO_MANY, Math.max(1, Math.ceil(result.msBeforeNext / 1000)));
}

function emailKey(email: string): string {
  return hashToken(email.trim().toLowerCase());
}
