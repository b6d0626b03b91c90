import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { REDIS, RedisKeyspace, WindowRateLimiter } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { SchedulerEnv } from '../config/scheduler.env';

/** The allowance's window: RATE_LIMIT_TRIGGERED_RUNS is per minute. */
const WINDOW_SECONDS = 60;

/** What was granted of a batch of starts: the first `granted`, and when the allowance is whole again. */
export interface AllowanceGrant {
  granted: number;
  retryAfterSeconds: number;
}

/**
 * Each owner's allowance of runs started by inbound endpoints, event triggers and backfills
 * (RATE_LIMIT_TRIGGERED_RUNS a minute), counted in Redis across every scheduler replica. It is its own
 * counter, apart from the gateway's per-user request limit: an owner whose triggers used it up still
 * makes API calls and starts runs through the API, and one owner's triggers never use up another's.
 */
@Injectable()
export class RunStartAllowance {
  private readonly limiter?: WindowRateLimiter;

  constructor(config: ConfigService<SchedulerEnv, true>, @Inject(REDIS) redis: Redis, keyspace: RedisKeyspace) {
    const limit = config.get('RATE_LIMIT_TRIGGERED_RUNS', { infer: true });
    if (limit > 0) this.limiter = new WindowRateLimiter(redis, keyspace.key('scheduler', 'allowance', 'triggered-runs'), limit, WINDOW_SECONDS);
  }

  /** The first of `starts` runs the owner's allowance still has room for (event triggers: the rest are refused). */
  async take(userId: string, starts: number): Promise<AllowanceGrant> {
    if (!this.limiter) return { granted: starts, retryAfterSeconds: 0 };
    const { granted, resetSeconds } = await this.limiter.take(userId, starts);
    return { granted, retryAfterSeconds: resetSeconds };
  }

  /** One start (an inbound call), or a 429 with Retry-After when the allowance is used up. */
  async takeOne(userId: string): Promise<void> {
    const { granted, retryAfterSeconds } = await this.take(userId, 1);
    if (granted === 0) throw this.usedUp(retryAfterSeconds);
  }

  /** All of `starts` (a backfill) or none: a 429 with Retry-After when fewer are left, and nothing is taken. */
  async takeAll(userId: string, starts: number): Promise<void> {
    if (!this.limiter) return;
    const left = await this.limiter.left(userId);
    if (left.remaining < starts) throw this.usedUp(left.resetSeconds, starts);
    const { granted, resetSeconds } = await this.limiter.take(userId, starts);
    if (granted === starts) return;
    // Another start took the room meanwhile.
    await this.limiter.giveBack(userId, starts);
    throw this.usedUp(resetSeconds, starts);
  }

  /** Why a start was refused, for a trigger's last_error. */
  usedUpReason(retryAfterSeconds: number): string {
    return this.usedUp(retryAfterSeconds).message;
  }

  private usedUp(retryAfterSeconds: number, starts = 1): TooManyRequestsError {
    const limit = this.limiter?.limit ?? 0;
    const asked = starts > 1 ? ` (${starts} asked for at once)` : '';
    return new TooManyRequestsError(
      `The owner's allowance of runs started by triggers and backfills is used up${asked}: RATE_LIMIT_TRIGGERED_RUNS is ${limit} a minute; retry after ${retryAfterSeconds} s`,
      retryAfterSeconds,
    );
  }
}
