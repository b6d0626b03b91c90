import { TooManyRequestsError } from '@aas/problem-details';
import { WebhookEntity } from '../database/webhook.entity';
import { RequestedSendLimits } from './requested-send-limits';

/** The allowances in memory, for one window that never ends; left out of the build. */
export class FakeRequestedSendLimits implements Pick<RequestedSendLimits, 'chargeTestEvent' | 'chargeRequestedSend'> {
  readonly used = new Map<string, number>();

  constructor(
    private readonly perWebhook = 5,
    private readonly perUser = 30,
  ) {}

  async chargeTestEvent(webhook: WebhookEntity): Promise<void> {
    this.take(`webhook:${webhook.id}`, this.perWebhook);
    await this.chargeRequestedSend(webhook.userId);
  }

  async chargeRequestedSend(userId: string): Promise<void> {
    this.take(`user:${userId}`, this.perUser);
  }

  private take(key: string, limit: number): void {
    const used = (this.used.get(key) ?? 0) + 1;
    this.used.set(key, used);
    if (used > limit) throw new TooManyRequestsError(`${key} is over its allowance of ${limit}`, 60);
  }
}
