import { SendResult, WebhookSender } from './webhook-sender';

export type SentDelivery = Parameters<WebhookSender['send']>[0];

/** A receiver in memory: answers each POST as a test says (204 unless told otherwise) and keeps what it was sent; left out of the build. */
export class FakeWebhookSender implements Pick<WebhookSender, 'send'> {
  /** The next answers, in order: a status with its headers' effect, or no answer (`statusCode: null` and an error). */
  readonly answers: Array<Partial<SendResult>> = [];
  readonly sent: SentDelivery[] = [];

  async send(delivery: SentDelivery): Promise<SendResult> {
    this.sent.push(delivery);
    const answer = this.answers.shift() ?? {};
    return { statusCode: 204, error: null, responseBody: '', durationMs: 12, ...answer };
  }

  /** The receiver answers `statusCode` next (with a Retry-After of `retryAfterMs` if given). */
  answer(statusCode: number, retryAfterMs?: number): this {
    this.answers.push({ statusCode, responseBody: `status ${statusCode}`, retryAfterMs });
    return this;
  }

  /** The receiver does not answer within the timeout next. */
  timeOut(): this {
    this.answers.push({ statusCode: null, error: 'no answer within 15000 ms', responseBody: null, durationMs: 15_000 });
    return this;
  }
}
