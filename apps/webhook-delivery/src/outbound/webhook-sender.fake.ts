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
    const requestHeaders = { 'content-type': 'application/json', 'webhook-id': delivery.deliveryId, 'x-service-event': delivery.event };
    return { statusCode: 204, error: null, responseBody: '', durationMs: 12, requestHeaders, responseHeaders: { 'content-length': '0' }, ...answer };
  }

  /** The receiver answers `statusCode` next (with a Retry-After of `retryAfterMs` if given). */
  answer(statusCode: number, retryAfterMs?: number): this {
    this.answers.push({ statusCode, responseBody: `status ${statusCode}`, retryAfterMs });
    return this;
  }

  /** The receiver does not answer within the timeout next. */
  timeOut(): this {
    this.answers.push({ statusCode: null, error: 'no answer within 15000 ms', responseBody: null, durationMs: 15_000, responseHeaders: null });
    return this;
  }

  /** The SSRF guard refuses the address next (not public, private networks not allowed). */
  refuseAddress(): this {
    const error = 'refused: webhook host receiver.example.com resolves to 10.0.0.7, which is not a public address';
    this.answers.push({ statusCode: null, error, responseBody: null, durationMs: 1, responseHeaders: null, addressRefused: true });
    return this;
  }
}
