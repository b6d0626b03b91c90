import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { REDIS, RedisKeyspace, WindowRateLimiter } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { SchedulerEnv } from '../config/scheduler.env';
import { TriggerEntity } from './trigger.entity';

/**
 * The allowances of inbound calls that passed their endpoint's token and signature checks: one per
 * endpoint (RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS) and one per owner across all of their endpoints
 * (RATE_LIMIT_INBOUND_OWNER_REQUESTS), counted in Redis across every scheduler replica. Charged only
 * here, where the verdict is known, so calls that fail verification (a stranger who knows the URL but
 * not the secret) never use them up; those count against the caller's address at the gateway.
 */
@Injectable()
export class InboundCallLimits {
  private readonly perEndpoint?: WindowRateLimiter;
  private readonly perOwner?: WindowRateLimiter;

  constructor(config: ConfigService<SchedulerEnv, true>, @Inject(REDIS) redis: Redis, keyspace: RedisKeyspace) {
    const window = config.get('RATE_LIMIT_WINDOW_SECONDS', { infer: true });
    const endpointLimit = config.get('RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS', { infer: true });
    const ownerLimit = config.get('RATE_LIMIT_INBOUND_OWNER_REQUESTS', { infer: true });
    if (endpointLimit > 0) this.perEndpoint = new WindowRateLimiter(redis, keyspace.key('scheduler', 'rate-limit', 'inbound-endpoint'), endpointLimit, window);
    if (ownerLimit > 0) this.perOwner = new WindowRateLimiter(redis, keyspace.key('scheduler', 'rate-limit', 'inbound-owner'), ownerLimit, window);
  }

  /** @throws TooManyRequestsError (429 with Retry-After) when the endpoint or its owner is over its allowance. */
  async charge(trigger: TriggerEntity): Promise<void> {
    if (this.perEndpoint) {
      const decision = await this.perEndpoint.consume(trigger.id);
      if (!decision.allowed) {
        throw new TooManyRequestsError(
          `This endpoint took more than ${decision.limit} calls in the current window; retry after ${decision.resetSeconds} s`,
          decision.resetSeconds,
        );
      }
    }
    if (this.perOwner) {
      const decision = await this.perOwner.consume(trigger.userId);
      if (!decision.allowed) {
        throw new TooManyRequestsError(
          `The endpoints of this endpoint's owner took more than ${decision.limit} calls in the current window; retry after ${decision.resetSeconds} s`,
          decision.resetSeconds,
        );
      }
    }
  }
}
