import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { CHAIN_HEADER, ChainLink, InstallationChainKey, inboundTargetOf, isSsrfBlocked } from '@aas/platform';
import { Agent, Dispatcher, request } from 'undici';
import { WebhooksEnv } from '../config/webhooks.env';
import { deliveryHeaders } from '../signing/sign-payload';
import { parseRetryAfter } from './retry-after';
import { createWebhookDispatcher } from './ssrf-guard';

/** Characters of the receiver's answer kept with the attempt. */
export const RESPONSE_KEPT_CHARS = 2048;
/** Of the answer's headers, this many are kept with the attempt, each value cut to RESPONSE_HEADER_VALUE_CHARS. */
export const RESPONSE_HEADERS_KEPT = 32;
export const RESPONSE_HEADER_VALUE_CHARS = 512;
/**
 * Bytes read of the answer at most: a UTF-16 code unit takes at most 3 bytes of UTF-8, so these always
 * hold the characters kept. The rest is never read: a receiver could stream gigabytes.
 */
export const RESPONSE_READ_BYTES = RESPONSE_KEPT_CHARS * 3;

/** One attempt of a delivery: where, signed with which secret, and the chain of its run (none for older deliveries). */
export interface OutgoingDelivery {
  url: string;
  secret: string;
  deliveryId: string;
  event: string;
  body: string;
  chain?: ChainLink | null;
}

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  retryAfterMs?: number;
  /** Every header sent, as sent. */
  requestHeaders: Record<string, string>;
  /** The answer's headers (bounded: keptResponseHeaders); null without an answer. */
  responseHeaders: Record<string, string> | null;
  /** The address is not public and private networks are not allowed: waiting cannot change that (DNS aside), so no retry. */
  addressRefused?: boolean;
}

/** One signed POST; never follows redirects; a 2xx within WEBHOOK_TIMEOUT_MS is success. */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly dispatcher: Agent;
  private readonly timeoutMs: number;
  private readonly chainKey: InstallationChainKey;

  constructor(config: ConfigService<WebhooksEnv, true>) {
    this.timeoutMs = config.get('WEBHOOK_TIMEOUT_MS', { infer: true });
    this.chainKey = InstallationChainKey.derivedFrom(config.get('WEBHOOK_SECRET_KEY', { infer: true }));
    this.dispatcher = createWebhookDispatcher({
      allowPrivateNetworks: config.get('WEBHOOK_ALLOW_PRIVATE_NETWORKS', { infer: true }),
      connectTimeoutMs: this.timeoutMs,
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.dispatcher.close();
  }

  async send(input: OutgoingDelivery): Promise<SendResult> {
    const started = Date.now();
    const requestHeaders = this.headersOf(input, new Date());
    try {
      const response = await request(input.url, {
        method: 'POST',
        body: input.body,
        headers: requestHeaders,
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // PostgreSQL text cannot hold NUL; a receiver's answer with one must not stop the attempt being recorded.
      const text = (await readAtMost(response.body, RESPONSE_READ_BYTES)).toString('utf8').slice(0, RESPONSE_KEPT_CHARS).replaceAll('\u0000', '');
      const retryAfter = response.headers['retry-after'];
      return {
        statusCode: response.statusCode,
        error: null,
        responseBody: text,
        durationMs: Date.now() - started,
        retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, new Date()),
        requestHeaders,
        responseHeaders: keptResponseHeaders(response.headers),
      };
    } catch (error) {
      const refused = isSsrfBlocked(error);
      const reason = refused
        ? `refused: ${(error as Error).message}`
        : (error as Error).name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs} ms`
          : describe(error);
      return { statusCode: null, error: reason, responseBody: null, durationMs: Date.now() - started, requestHeaders, responseHeaders: null, addressRefused: refused };
    }
  }

  /**
   * The signed headers of one attempt, and the installation's chain header: a receiver that is an inbound
   * endpoint of this installation continues the run's chain with it (and its gateway charges the call to no
   * address); any other receiver may ignore it.
   */
  private headersOf(input: OutgoingDelivery, now: Date): Record<string, string> {
    const headers = deliveryHeaders({ secret: input.secret, deliveryId: input.deliveryId, event: input.event, rawBody: input.body, now });
    if (input.chain) {
      const call = { deliveryId: input.deliveryId, body: input.body, target: inboundTargetOf(new URL(input.url).pathname), now };
      headers[CHAIN_HEADER] = this.chainKey.sign(input.chain, call);
    }
    return headers;
  }
}

/**
 * The first `limit` bytes of a response body (fewer if it is shorter). The body is destroyed then, which
 * closes the connection rather than drain what is left; the request's timeout still ends a slow body.
 */
async function readAtMost(body: Dispatcher.ResponseData['body'], limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      length += chunk.length;
      if (length >= limit) break;
    }
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

/**
 * The answer's headers as kept with the attempt: the first RESPONSE_HEADERS_KEPT, each value cut to
 * RESPONSE_HEADER_VALUE_CHARS (repeated headers joined with ", "), so a receiver's header block costs
 * at most about 16 KiB of storage per attempt. NUL, which PostgreSQL's jsonb cannot hold, is dropped.
 */
export function keptResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, RESPONSE_HEADERS_KEPT)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    kept[name.toLowerCase()] = text.slice(0, RESPONSE_HEADER_VALUE_CHARS).replaceAll('\u0000', '');
  }
  return kept;
}

function describe(error: unknown): string {
  const e = error as Error & { code?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  return code ? `${code}: ${e.cause?.message ?? e.message}` : e.message;
}
