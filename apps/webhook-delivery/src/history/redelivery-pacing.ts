import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { REDIS, RedisKeyspace } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { WebhooksEnv } from '../config/webhooks.env';

/**
 * How far ahead one user's bulk redeliveries may be queued: a request queues as many as fit before it
 * (the rest are left failed, `more` says so), and one that fits none is a 429 until some have gone out.
 * What bounds the work one user's requests make at once: each queued delivery is a queue job to create,
 * about half a millisecond of webhook-delivery's CPU.
 */
export const PACING_HORIZON_MS = 30_000;

/**
 * Takes up to `n` send times `spacing` apart for the user, after those already taken (or from now), as
 * many as end within the horizon. KEYS: the user's key (the end of their last reservation, ms on Redis's
 * clock). ARGV: n, spacing ms, horizon ms. Answers {ms from now to the first, how many were taken, the
 * end of this reservation}; none taken: {ms until one would fit, 0, 0}.
 */
const RESERVE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n, spacing, horizon = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local from = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local granted = math.min(n, math.floor((now + horizon - from) / spacing))
if granted <= 0 then return {from + spacing - horizon - now, 0, 0} end
local last = from + granted * spacing
redis.call('SET', KEYS[1], last, 'PX', last - now + 1000)
return {from - now, granted, last}`;

/** Gives back the unused end of a reservation, if no reservation was made after it. ARGV: its end, the end to keep. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return 0`;

/** A user's reservation: `granted` sends, the first `firstDelayMs` from now, the i-th `i * spacingMs` after it. */
export interface PacedSends {
  firstDelayMs: number;
  spacingMs: number;
  granted: number;
  /** The reservation's end, on Redis's clock: what `release` compares. */
  end: number;
}

/**
 * Spreads each user's bulk redeliveries over time, across every replica: at most
 * WEBHOOK_REDELIVER_SINCE_PER_SECOND of them come due per second per user, however many requests asked
 * for them, so they wait in the queue's delayed set (costing nothing) rather than being picked up at
 * once and deferred again and again by their endpoints' limits while other users' deliveries wait for
 * the workers. What a user may have queued ahead is bounded by PACING_HORIZON_MS (600 deliveries at 20 a
 * second).
 */
@Injectable()
export class RedeliveryPacing {
  readonly spacingMs: number;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
    config: ConfigService<WebhooksEnv, true>,
  ) {
    // Whole milliseconds: the script's times stay integers, which Redis answers exactly.
    this.spacingMs = Math.max(1, Math.round(1000 / config.get('WEBHOOK_REDELIVER_SINCE_PER_SECOND', { infer: true })));
  }

  /**
   * Up to `n` turns for the user's bulk redeliveries, as many as fit within the horizon.
   * @throws TooManyRequestsError (with Retry-After) while none fits.
   */
  async reserve(userId: string, n: number): Promise<PacedSends> {
    const [firstDelayMs, granted, end] = (await this.redis.eval(RESERVE, 1, this.key(userId), n, this.spacingMs, PACING_HORIZON_MS)) as number[];
    if (granted === 0) {
      const seconds = Math.max(1, Math.ceil(firstDelayMs / 1000));
      throw new TooManyRequestsError(
        `Your bulk redeliveries already queued take the next ${PACING_HORIZON_MS / 1000} s (they go out ${Math.round(1000 / this.spacingMs)} a second); retry after ${seconds} s`,
        seconds,
      );
    }
    return { firstDelayMs, spacingMs: this.spacingMs, granted, end };
  }

  /** Only the reservation's first `used` turns are used (a concurrent request took the deliveries of the others): the rest are free again. */
  async release(userId: string, sends: PacedSends, used: number): Promise<void> {
    if (used === sends.granted) return;
    await this.redis.eval(RELEASE, 1, this.key(userId), sends.end, sends.end - (sends.granted - used) * this.spacingMs);
  }

  private key(userId: string): string {
    return this.keyspace.key('webhooks', 'redelivery-paced-until', userId);
  }
}
