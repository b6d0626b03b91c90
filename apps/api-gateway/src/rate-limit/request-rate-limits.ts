import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { REDIS, RateLimitDecision, RedisKeyspace, WindowRateLimiter } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
import { GatewayEnv } from '../config/gateway.env';
import { addressKey } from './client-address';

/**
 * The gateway's two allowances, counted in Redis across every replica: one per user, shared by all
 * of its API keys (RATE_LIMIT_REQUESTS), and one per client address for what arrives without a key
 * this gateway has already verified (RATE_LIMIT_UNAUTHENTICATED_REQUESTS). Each is a separate
 * counter, so one user or address over its allowance never uses up anyone else's.
 */
@Injectable()
export class RequestRateLimits {
  private readonly perUser?: WindowRateLimiter;
  private readonly perAddress?: WindowRateLimiter;
  private readonly perInboundEndpoint?: WindowRateLimiter;

  constructor(config: ConfigService<GatewayEnv, true>, @Inject(REDIS) redis: Redis, keyspace: RedisKeyspace) {
    const window = config.get('RATE_LIMIT_WINDOW_SECONDS', { infer: true });
    const userLimit = config.get('RATE_LIMIT_REQUESTS', { infer: true });
    const addressLimit = config.get('RATE_LIMIT_UNAUTHENTICATED_REQUESTS', { infer: true });
    if (userLimit > 0) this.perUser = new WindowRateLimiter(redis, keyspace.key('gateway', 'rate-limit', 'user'), userLimit, window);
    if (addressLimit > 0) {
      this.perAddress = new WindowRateLimiter(redis, keyspace.key('gateway', 'rate-limit', 'address'), addressLimit, window);
    }
    const endpointLimit = config.get('RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS', { infer: true });
    if (endpointLimit > 0) {
      this.perInboundEndpoint = new WindowRateLimiter(redis, keyspace.key('gateway', 'rate-limit', 'inbound'), endpointLimit, window);
    }
  }

  /** Counts an authenticated request against its user; over the allowance it is a 429. */
  async chargeUser(userId: string, reply: FastifyReply): Promise<void> {
    if (!this.perUser) return;
    const decision = await this.perUser.consume(userId);
    answer(decision, reply, `This user made more than ${decision.limit} requests in the current window (all of its API keys together)`);
  }

  /** Counts a request that has no verified key against its client address (request.ip, per TRUST_PROXY). */
  async chargeAddress(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!this.perAddress) return;
    const decision = await this.perAddress.consume(addressKey(request.ip));
    answer(decision, reply, `This address made more than ${decision.limit} requests without a verified API key in the current window`);
  }

  /**
   * Counts a call to an inbound webhook endpoint against its URL (RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS).
   * Keyed by a digest of the trigger id and token, so guesses with wrong tokens (bounded by the
   * address allowance) never use up the real endpoint's allowance.
   */
  async chargeInboundEndpoint(triggerId: string, token: string, reply: FastifyReply): Promise<void> {
    if (!this.perInboundEndpoint) return;
    const key = createHash('sha256').update(`${triggerId}/${token}`).digest('base64url');
    const decision = await this.perInboundEndpoint.consume(key);
    answer(decision, reply, `This endpoint received more than ${decision.limit} calls in the current window`);
  }
}

function answer(decision: RateLimitDecision, reply: FastifyReply, over: string): void {
  void reply
    .header('ratelimit-limit', String(decision.limit))
    .header('ratelimit-remaining', String(decision.remaining))
    .header('ratelimit-reset', String(decision.resetSeconds));
  if (!decision.allowed) throw new TooManyRequestsError(`${over}; retry after ${decision.resetSeconds} s`, decision.resetSeconds);
}
