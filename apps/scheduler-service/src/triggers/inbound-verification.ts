import { TriggerVerification } from '@aas/contracts';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** Why a signed inbound call was refused; the detail of its 401. */
export class SignatureRefused extends Error {}

/**
 * Checks an inbound call's signature the way its sender signs it. `none` trusts the
 * unguessable URL alone. `standard_webhooks`: webhook-id, webhook-timestamp (within
 * 5 minutes) and webhook-signature, by the standardwebhooks library; each of them may come by its Svix
 * name (svix-id, …), as Svix-powered senders send them by default. `github`:
 * X-Hub-Signature-256, HMAC-SHA256 of the raw body keyed by the secret as given.
 * @throws SignatureRefused
 */
export function verifyInboundSignature(
  verification: TriggerVerification,
  secret: string,
  rawBody: string,
  headers: Record<string, string>,
): void {
  if (verification === 'standard_webhooks') verifyStandardWebhook(secret, rawBody, headers);
  else if (verification === 'github') verifyGithub(secret, rawBody, headers['x-hub-signature-256']);
}

/** The Standard Webhooks names, and the Svix names a sender uses for the same headers unless told otherwise. */
const STANDARD_WEBHOOK_HEADERS = [
  ['webhook-id', 'svix-id'],
  ['webhook-timestamp', 'svix-timestamp'],
  ['webhook-signature', 'svix-signature'],
] as const;

function verifyStandardWebhook(secret: string, rawBody: string, headers: Record<string, string>): void {
  const signed: Record<string, string> = {};
  for (const [name, svixName] of STANDARD_WEBHOOK_HEADERS) {
    // The webhook-* name first, as the delivery id is chosen (inbound-hooks.service.ts), so the id checked is the id kept.
    const value = headers[name] || headers[svixName];
    if (!value) throw new SignatureRefused(`The ${name} (or ${svixName}) header is missing: this endpoint takes Standard Webhooks signatures`);
    signed[name] = value;
  }
  try {
    new Webhook(secret).verify(rawBody, signed);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    throw new SignatureRefused(`The Standard Webhooks signature was refused: ${error.message}`);
  }
}

function verifyGithub(secret: string, rawBody: string, signature: string | undefined): void {
  if (!signature) throw new SignatureRefused('The X-Hub-Signature-256 header is missing: this endpoint takes GitHub signatures');
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex')}`);
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new SignatureRefused('The X-Hub-Signature-256 signature does not match the body');
  }
}
