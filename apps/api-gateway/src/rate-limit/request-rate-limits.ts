import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { REDIS, RateLimitDecision, RedisKeyspace, WindowRateLimiter } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Redis from 'ioredis';
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

  constructor(config: ConfigService<GatewayEnv, true>, @Inject(REDIS) redis: Redis, keyspace: RedisKeyspace) {
    const window = config.get('RATE_LIMIT_WINDOW_SECONDS', { infer: true });
    const userLimit = config.get('RATE_LIMIT_REQUESTS', { infer: true });
    const addressLimit = config.get('RATE_LIMIT_UNAUTHENTICATED_REQUESTS', { infer: true });
    if (userLimit > 0) this.perUser = new WindowRateLimiter(redis, keyspace.key('gateway', 'rate-limit', 'user'), userLimit, window);
    if (addressLimit > 0) {
      this.perAddress = new WindowRateLimiter(redis, keyspace.key('gateway', 'rate-limit', 'address'), addressLimit, window);
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
   * Gives the address back what chargeAddress took for a console session that proved live: the
   * session's requests are its user's to pay for (chargeUser), as a cached key's are. Charged first
   * and refunded after, so made-up sessions never reach agents-service more often than the address allows.
   */
  async refundAddress(request: FastifyRequest): Promise<void> {
    await this.perAddress?.refund(addressKey(request.ip));
  }

  /**
   * Before an inbound webhook call is passed on: a 429 when its address has used up its allowance
   * (RATE_LIMIT_UNAUTHENTICATED_REQUESTS, to which failed inbound calls count) and the URL it calls is
   * not one that passed verification lately (`urlVerified`, asked only then). So an address shared by
   * many senders (GitHub's, Stripe's) that one tenant made fail still reaches the endpoints that work.
   */
  async refuseInboundFromFailingAddress(request: FastifyRequest, reply: FastifyReply, urlVerified: () => Promise<boolean>): Promise<void> {
    const blockedMs = this.perAddress?.blockedForMs(addressKey(request.ip)) ?? 0;
    if (blockedMs === 0 || (await urlVerified())) return;
    const retryAfter = Math.max(1, Math.ceil(blockedMs / 1000));
    answer({ allowed: false, limit: this.perAddress!.limit, remaining: 0, resetSeconds: retryAfter }, reply, `This address made more than ${this.perAddress!.limit} failed calls or requests without a verified API key in the current window`);
  }

  /**
   * An inbound webhook call that failed verification (an unknown endpoint, a wrong token, a bad signature)
   * counts against its address; calls that passed never do. The call keeps its own answer (404, 401);
   * the address's next calls meet refuseInboundFromFailingAddress.
   */
  async chargeInboundFailure(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    if (!this.perAddress) return;
    const decision = await this.perAddress.consume(addressKey(request.ip));
    void reply
      .header('ratelimit-limit', String(decision.limit))
      .header('ratelimit-remaining', String(decision.remaining))
      .header('ratelimit-reset', String(decision.resetSeconds));
  }
}

function answer(decision: RateLimitDecision, reply: FastifyReply, over: string): void {
  void reply
    .header('ratelimit-limit', String(decision.limit))
    .header('ratelimit-remaining', String(decision.remaining))
    .header('ratelimit-reset', String(decision.resetSeconds));
  if (!decision.allowed) throw new TooManyRequestsError(`${over}; retry after ${decision.resetSeconds} s`, decision.resetSeconds);
}
