import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Agent, request } from 'undici';
import { WebhooksEnv } from '../config/webhooks.env';
import { parseRetryAfter } from './retry-schedule';
import { deliveryHeaders } from './sign-payload';
import { createWebhookDispatcher, isSsrfBlocked } from './ssrf-guard';

const RESPONSE_KEPT_BYTES = 2048;

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  retryAfterMs?: number;
}

/** One signed POST; never follows redirects; a 2xx within WEBHOOK_TIMEOUT_MS is success. */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly dispatcher: Agent;
  private readonly timeoutMs: number;

  constructor(config: ConfigService<WebhooksEnv, true>) {
    this.timeoutMs = config.get('WEBHOOK_TIMEOUT_MS', { infer: true });
    this.dispatcher = createWebhookDispatcher({
      allowPrivateNetworks: config.get('WEBHOOK_ALLOW_PRIVATE_NETWORKS', { infer: true }),
      connectTimeoutMs: this.timeoutMs,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.close();
  }

  async send(input: { url: string; secret: string; deliveryId: string; event: string; body: string }): Promise<SendResult> {
    const started = Date.now();
    try {
      const response = await request(input.url, {
        method: 'POST',
        body: input.body,
        headers: deliveryHeaders({ secret: input.secret, deliveryId: input.deliveryId, event: input.event, rawBody: input.body, now: new Date() }),
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // PostgreSQL text cannot hold NUL; a receiver's answer with one must not stop the attempt being recorded.
      const text = (await response.body.text()).slice(0, RESPONSE_KEPT_BYTES).replaceAll('\u0000', '');
      const retryAfter = response.headers['retry-after'];
      return {
        statusCode: response.statusCode,
        error: null,
        responseBody: text,
        durationMs: Date.now() - started,
        retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, new Date()),
      };
    } catch (error) {
      const reason = isSsrfBlocked(error)
        ? `refused: ${(error as Error).message}`
        : (error as Error).name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : describe(error);
      return { statusCode: null, error: reason, responseBody: null, durationMs: Date.now() - started };
    }
  }
}

function describe(error: unknown): string {
  const e = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  return code ? `${code}: ${e.cause?.message ?? e.message}` : e.message;
}
