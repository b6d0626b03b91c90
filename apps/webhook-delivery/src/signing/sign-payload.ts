import { createHmac, randomBytes } from 'node:crypto';

const STANDARD_SECRET_PREFIX = 'whsec_';

/** `sha256=` + hex HMAC-SHA256 of the raw body: the spec's X-Service-Signature. */
export function serviceSignature(secret: string, rawBody: string): string {
  // Keyed with the UTF-8 bytes of the whole secret, `whsec_` included: the spec tells receivers to use
  // "the signing secret" as returned, so they must not have to strip or decode anything.
  return `sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`;
}

/**
 * `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`, the webhook-signature of Standard Webhooks
 * (https://www.standardwebhooks.com). Unlike X-Service-Signature, the key is the base64-decoded part after
 * `whsec_`, as that spec defines it, so its libraries verify with our secret as given; a secret without
 * the prefix is used as UTF-8 bytes.
 */
export function standardWebhookSignature(secret: string, messageId: string, timestampSeconds: number, rawBody: string): string {
  const key = secret.startsWith(STANDARD_SECRET_PREFIX)
    ? Buffer.from(secret.slice(STANDARD_SECRET_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
  const signed = `${messageId}.${timestampSeconds}.${rawBody}`;
  return `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`;
}

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `${STANDARD_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export interface DeliveryHeadersInput {
  secret: string;
  /** Same on every attempt of one delivery, so receivers can drop duplicates. */
  deliveryId: string;
  event: string;
  rawBody: string;
  /** The attempt's time: webhook-timestamp is re-signed on each retry so receivers' replay windows hold. */
  now: Date;
}

/** Every header of one delivery attempt. */
export function deliveryHeaders(input: DeliveryHeadersInput): Record<string, string> {
  const timestamp = Math.floor(input.now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'AgentAutomationService-Webhooks/1.0',
    'x-service-signature': serviceSignature(input.secret, input.rawBody),
    'x-service-event': input.event,
    'x-service-delivery': input.deliveryId,
    'webhook-id': input.deliveryId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(input.secret, input.deliveryId, timestamp, input.rawBody),
  };
}
