import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { REDIS, RedisKeyspace } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { GatewayEnv } from '../../config/gateway.env';

/** A slot lives this long unless its gateway renews it: a gateway that dies frees its users' slots within it. */
export const STREAM_SLOT_LEASE_MS = 30_000;
const RENEW_EVERY_MS = STREAM_SLOT_LEASE_MS / 3;

/**
 * Takes a slot if the user holds fewer than the cap (Redis's clock, so gateways' clocks do not matter).
 * KEYS: the user's slot set; ARGV: cap, lease ms, slot id.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/** Extends the lease of slots still held. KEYS: the user's slot set; ARGV: lease ms, slot ids… */
const RENEW = `
local t = redis.call('TIME')
local until_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', until_ms, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 0`;

/**
 * The per-user cap on open event streams (STREAMS_PER_USER), counted in Redis so that it holds across
 * gateway replicas: each open stream holds a leased member of its user's sorted set; the gateway renews
 * the leases of its streams every 10 s and removes a stream's member when it closes.
 */
@Injectable()
export class StreamSlots implements OnModuleInit, OnApplicationShutdown {
  private readonly cap: number;
  /** Slots this gateway holds, by user. */
  private readonly held = new Map<string, Set<string>>();
  private timer?: NodeJS.Timeout;

  constructor(
    config: ConfigService<GatewayEnv, true>,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keyspace: RedisKeyspace,
  ) {
    this.cap = config.get('STREAMS_PER_USER', { infer: true });
  }

  onModuleInit(): void {
    this.timer = setInterval(() => void this.renew().catch(() => undefined), RENEW_EVERY_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** A slot for one more stream of the user, or a 429 when the user has STREAMS_PER_USER open. */
  async acquire(userId: string): Promise<string> {
    const slot = randomUUID();
    if (this.cap === 0) return slot;
    const taken = await this.redis.eval(ACQUIRE, 1, this.key(userId), this.cap, STREAM_SLOT_LEASE_MS, slot);
    if (taken !== 1) {
      throw new TooManyRequestsError(
        `You have ${this.cap} open event streams, the most one user may have (STREAMS_PER_USER); close one before opening another`,
        5,
      );
    }
    const mine = this.held.get(userId) ?? new Set<string>();
    mine.add(slot);
    this.held.set(userId, mine);
    return slot;
  }

  release(userId: string, slot: string): void {
    if (this.cap === 0) return;
    const mine = this.held.get(userId);
    mine?.delete(slot);
    if (mine?.size === 0) this.held.delete(userId);
    // Should Redis be unreachable, the lease frees the slot anyway.
    this.redis.zrem(this.key(userId), slot).catch(() => undefined);
  }

  private async renew(): Promise<void> {
    const pipeline = this.redis.pipeline();
    for (const [userId, slots] of this.held) pipeline.eval(RENEW, 1, this.key(userId), STREAM_SLOT_LEASE_MS, ...slots);
    if (pipeline.length > 0) await pipeline.exec();
  }

  private key(userId: string): string {
    return this.keyspace.key('gateway', 'streams', userId);
  }
}
