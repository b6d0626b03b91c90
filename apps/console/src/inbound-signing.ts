/**
 * Signing a test payload in the browser, as a sender of an inbound webhook endpoint would
 * (docs/console.md, "Triggers"): only while the endpoint's secret is still shown, with Web
 * Crypto, which browsers offer on HTTPS and on localhost only.
 */
export type Verification = 'none' | 'standard_webhooks' | 'github';

export function canSignHere(): boolean {
  return typeof crypto !== 'undefined' && crypto.subtle !== undefined && typeof crypto.randomUUID === 'function';
}

async function hmacSha256(key: Uint8Array<ArrayBuffer>, message: string): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', imported, new TextEncoder().encode(message)));
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The headers that make `body` pass the endpoint's check: Standard Webhooks' webhook-id,
 * webhook-timestamp and webhook-signature (HMAC-SHA256 of "id.timestamp.body" keyed by the
 * secret's base64 after "whsec_"), or GitHub's X-Hub-Signature-256 (HMAC-SHA256 of the body
 * keyed by the secret as given). A fresh delivery id each time, so each test starts a run.
 */
export async function signedHeaders(verification: Verification, secret: string, body: string): Promise<Record<string, string>> {
  if (verification === 'none') return {};
  const id = `console-test-${crypto.randomUUID()}`;
  if (verification === 'github') {
    const signature = await hmacSha256(new TextEncoder().encode(secret), body);
    return { 'x-github-delivery': id, 'x-github-event': 'console_test', 'x-hub-signature-256': `sha256=${hex(signature)}` };
  }
  const key = Uint8Array.from(atob(secret.replace(/^whsec_/, '')), (c) => c.charCodeAt(0));
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = await hmacSha256(key, `${id}.${timestamp}.${body}`);
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${base64(signature)}` };
}
