import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { SignatureRefused, verifyInboundSignature } from './inbound-verification';
import { newTriggerSecret } from './trigger-credentials';

describe(verifyInboundSignature.name, () => {
  const secret = newTriggerSecret();
  const body = '{"ref":"refs/heads/main"}';

  describe('standard_webhooks', () => {
    const signed = (at: Date, payload = body) => ({
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('msg_1', at, payload),
    });

    it('takes a fresh signature over the exact body', () => {
      expect(() => verifyInboundSignature('standard_webhooks', secret, body, signed(new Date()))).not.toThrow();
    });

    it('refuses another body, another secret, a timestamp older than 5 minutes and missing headers', () => {
      expect(() => verifyInboundSignature('standard_webhooks', secret, '{"ref":"x"}', signed(new Date()))).toThrow(SignatureRefused);
      expect(() => verifyInboundSignature('standard_webhooks', newTriggerSecret(), body, signed(new Date()))).toThrow(SignatureRefused);
      expect(() => verifyInboundSignature('standard_webhooks', secret, body, signed(new Date(Date.now() - 6 * 60_000)))).toThrow(/timestamp/i);
      expect(() => verifyInboundSignature('standard_webhooks', secret, body, {})).toThrow(/webhook-id header is missing/);
    });
  });

  describe('github', () => {
    const githubSignature = (key: string, payload = body) => `sha256=${createHmac('sha256', key).update(payload).digest('hex')}`;

    it('takes X-Hub-Signature-256 keyed by the secret as given', () => {
      expect(() => verifyInboundSignature('github', secret, body, { 'x-hub-signature-256': githubSignature(secret) })).not.toThrow();
    });

    it('refuses another body, another key, a truncated signature and none', () => {
      expect(() => verifyInboundSignature('github', secret, '{}', { 'x-hub-signature-256': githubSignature(secret) })).toThrow(SignatureRefused);
      expect(() => verifyInboundSignature('github', secret, body, { 'x-hub-signature-256': githubSignature('other') })).toThrow(SignatureRefused);
      expect(() => verifyInboundSignature('github', secret, body, { 'x-hub-signature-256': githubSignature(secret).slice(0, 20) })).toThrow(SignatureRefused);
      expect(() => verifyInboundSignature('github', secret, body, {})).toThrow(/missing/);
    });
  });

  it('none checks nothing (the unguessable URL is the credential)', () => {
    expect(() => verifyInboundSignature('none', secret, body, {})).not.toThrow();
  });
});
