import { createHmac, timingSafeEqual } from 'node:crypto';
import { deliveryHeaders, generateSigningSecret, serviceSignature, standardWebhookSignature } from './sign-payload';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

// Receiver-side checks, written from the specs alone (docs/decisions.md, Webhooks, documents the same steps).
function receiverAcceptsServiceSignature(secret: string, rawBody: string, header: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function receiverAcceptsStandardWebhook(secret: string, headers: Record<string, string>, rawBody: string, nowSeconds: number): boolean {
  const timestamp = Number(headers['webhook-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = `${headers['webhook-id']}.${headers['webhook-timestamp']}.${rawBody}`;
  const expected = createHmac('sha256', key).update(signed).digest();
  return headers['webhook-signature'].split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

describe(serviceSignature.name, () => {
  it('is sha256= and the hex HMAC keyed with the whole secret string, prefix included', () => {
    const body = '{"event":"run.started","note":"héllo"}';
    const expected = createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(serviceSignature(SECRET, body)).toBe(`sha256=${expected}`);
  });

  it('changes with the body and with the secret', () => {
    expect(serviceSignature(SECRET, '{}')).not.toBe(serviceSignature(SECRET, '{ }'));
    expect(serviceSignature(SECRET, '{}')).not.toBe(serviceSignature(`${SECRET}x`, '{}'));
  });
});

describe(standardWebhookSignature.name, () => {
  it('reproduces the published Standard Webhooks test vector', () => {
    // The reference libraries' own vector (standard-webhooks / svix test suites).
    expect(standardWebhookSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  it('keys the HMAC with the base64-decoded part after whsec_', () => {
    const expected = createHmac('sha256', Buffer.alloc(32, 7)).update('id-1.1700000000.{"a":1}').digest('base64');
    expect(standardWebhookSignature(SECRET, 'id-1', 1700000000, '{"a":1}')).toBe(`v1,${expected}`);
  });

  it('keys the HMAC with the UTF-8 bytes of a secret without the prefix', () => {
    const expected = createHmac('sha256', Buffer.from('plain-sécret', 'utf8')).update('id-1.5.{}').digest('base64');
    expect(standardWebhookSignature('plain-sécret', 'id-1', 5, '{}')).toBe(`v1,${expected}`);
  });
});

describe(generateSigningSecret.name, () => {
  it('is whsec_ and the base64 of 32 bytes', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
  });

  it('is different each time', () => {
    expect(generateSigningSecret()).not.toBe(generateSigningSecret());
  });
});

describe(deliveryHeaders.name, () => {
  const rawBody = '{"event":"run.completed","timestamp":"2024-01-01T00:00:00.000Z","data":{"run_id":"r1"}}';
  const now = new Date(1_700_000_000_999);
  const nowSeconds = 1_700_000_000;
  const headers = deliveryHeaders({ secret: SECRET, deliveryId: 'dlv_1', event: 'run.completed', rawBody, now });

  it('has exactly the delivery headers', () => {
    expect(Object.keys(headers).sort()).toEqual(
      [
        'content-type',
        'user-agent',
        'x-service-signature',
        'x-service-event',
        'x-service-delivery',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ].sort(),
    );
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'AgentAutomationService-Webhooks/1.0',
      'x-service-event': 'run.completed',
      'x-service-delivery': 'dlv_1',
      'webhook-id': 'dlv_1',
      'webhook-timestamp': String(nowSeconds),
    });
  });

  it('passes both receiver checks', () => {
    expect(receiverAcceptsServiceSignature(SECRET, rawBody, headers['x-service-signature'])).toBe(true);
    expect(receiverAcceptsStandardWebhook(SECRET, headers, rawBody, nowSeconds + 10)).toBe(true);
  });

  it('fails both receiver checks for a tampered body', () => {
    const tampered = rawBody.replace('r1', 'r2');
    expect(receiverAcceptsServiceSignature(SECRET, tampered, headers['x-service-signature'])).toBe(false);
    expect(receiverAcceptsStandardWebhook(SECRET, headers, tampered, nowSeconds)).toBe(false);
  });

  it('fails both receiver checks for another secret', () => {
    const other = generateSigningSecret();
    expect(receiverAcceptsServiceSignature(other, rawBody, headers['x-service-signature'])).toBe(false);
    expect(receiverAcceptsStandardWebhook(other, headers, rawBody, nowSeconds)).toBe(false);
  });

  it('keeps the delivery id on a retry and re-signs the new timestamp', () => {
    const retry = deliveryHeaders({ secret: SECRET, deliveryId: 'dlv_1', event: 'run.completed', rawBody, now: new Date(now.getTime() + 60_000) });
    expect(retry['webhook-id']).toBe('dlv_1');
    expect(retry['x-service-delivery']).toBe('dlv_1');
    expect(retry['webhook-timestamp']).toBe(String(nowSeconds + 60));
    expect(retry['webhook-signature']).not.toBe(headers['webhook-signature']);
    expect(receiverAcceptsStandardWebhook(SECRET, retry, rawBody, nowSeconds + 60)).toBe(true);
    // The stale attempt's headers fall outside a 5-minute replay window.
    expect(receiverAcceptsStandardWebhook(SECRET, headers, rawBody, nowSeconds + 301)).toBe(false);
  });
});
