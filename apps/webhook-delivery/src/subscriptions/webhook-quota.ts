import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QuotaExceededError } from '@aas/problem-details';
import { WebhooksEnv } from '../config/webhooks.env';
import { WebhookStore } from './webhook.store';
import { Transaction } from '@aas/platform';

/** The webhooks_per_agent quota (QUOTA_WEBHOOKS_PER_AGENT): the webhooks of one agent, active and disabled. */
@Injectable()
export class WebhookQuota {
  constructor(
    private readonly webhooks: WebhookStore,
    private readonly config: ConfigService<WebhooksEnv, true>,
  ) {}

  /**
   * Inside the transaction that creates the webhook: creations for one agent are serialised by a lock
   * on it, so two can never both take the last slot. Only the agent generation's own webhooks count
   * (and those from before generations): a deleted agent's that await deletion leave a new one's room.
   */
  async reserve(tx: Transaction, agentId: string, generation: number): Promise<void> {
    const limit = this.config.get('QUOTA_WEBHOOKS_PER_AGENT', { infer: true });
    if (limit === 0) return;
    await this.webhooks.lockAgent(tx, agentId);
    const held = await this.webhooks.countOfGeneration(tx, agentId, generation, limit);
    if (held >= limit) {
      throw new QuotaExceededError(
        `This agent has ${held} webhooks, the most one agent may have (quota webhooks_per_agent is ${limit}); delete one before creating another`,
        'webhooks_per_agent',
        limit,
      );
    }
  }
}
