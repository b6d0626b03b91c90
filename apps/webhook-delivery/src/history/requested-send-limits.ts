import { Inject, Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { REDIS, RedisKeyspace, WindowRateLimiter } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import Redis from 'ioredis';
import { WebhooksEnv } from '../config/webhooks.env';
import { WebhookEntity } from '../database/webhook.entity';

const WINDOW_SECONDS = 60;

/**
 * The allowances of sends a user asks for (docs/decisions.md, Webhooks): test events per webhook
 * (WEBHOOK_TEST_EVENTS_PER_MINUTE), and test events and bulk redeliveries of one user's webhooks together
 * (WEBHOOK_REQUESTED_SENDS_PER_USER_PER_MINUTE), counted in Redis across every replica. Charged only
 * after the webhook was found to be the caller's: another user's requests are 404s that use up nothing.
 */
@Injectable()
export class RequestedSendLimits {
  private readonly perWebhook?: WindowRateLimiter;
  private readonly perUser?: WindowRateLimiter;

  constructor(config: ConfigService<WebhooksEnv, true>, @Inject(REDIS) redis: Redis, keyspace: RedisKeyspace) {
    const webhookLimit = config.get('WEBHOOK_TEST_EVENTS_PER_MINUTE', { infer: true });
    const userLimit = config.get('WEBHOOK_REQUESTED_SENDS_PER_USER_PER_MINUTE', { infer: true });
    if (webhookLimit > 0) this.perWebhook = new WindowRateLimiter(redis, keyspace.key('webhooks', 'rate-limit', 'test-events'), webhookLimit, WINDOW_SECONDS);
    if (userLimit > 0) this.perUser = new WindowRateLimiter(redis, keyspace.key('webhooks', 'rate-limit', 'requested-sends'), userLimit, WINDOW_SECONDS);
  }

  /** @throws TooManyRequestsError (429 with Retry-After) when the webhook or its owner is over its allowance. */
  async chargeTestEvent(webhook: WebhookEntity): Promise<void> {
    await this.charge(this.perWebhook, webhook.id, (limit) => `This webhook was sent ${limit} test events in the last minute, the most it may be`);
    await this.chargeRequestedSend(webhook.userId);
  }

  /** @throws TooManyRequestsError when the user asked for more test events and bulk redeliveries in the window than allowed. */
  chargeRequestedSend(userId: string): Promise<void> {
    return this.charge(this.perUser, userId, (limit) => `Your webhooks were asked for ${limit} test events and bulk redeliveries in the last minute, the most allowed`);
  }

  private async charge(limiter: WindowRateLimiter | undefined, key: string, over: (limit: number) => string): Promise<void> {
    if (!limiter) return;
    const decision = await limiter.consume(key);
    if (!decision.allowed) throw new TooManyRequestsError(`${over(decision.limit)}; retry after ${decision.resetSeconds} s`, decision.resetSeconds);
  }
}
