import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
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
      expect(() => verifyInboundSignature('standard_webhooks', secret, body, {})).toThrow(/webhook-id \(or svix-id\) header is missing/);
    });

    describe('by the Svix header names', () => {
      // As Svix (and so Clerk, Resend, …) sends them by default: the svix library signs, the names are svix-*.
      const svixSigned = (at: Date, id = 'msg_svix_1', payload = body) => ({
        'svix-id': id,
        'svix-timestamp': String(Math.floor(at.getTime() / 1000)),
        'svix-signature': new SvixWebhook(secret).sign(id, at, payload),
      });

      it('takes them where the webhook-* names are absent, as the svix library itself does', () => {
        const headers = svixSigned(new Date());
        expect(() => new SvixWebhook(secret).verify(body, headers)).not.toThrow();
        expect(() => verifyInboundSignature('standard_webhooks', secret, body, headers)).not.toThrow();
      });

      it('refuses another body, another secret, a stale timestamp and a partial set', () => {
        expect(() => verifyInboundSignature('standard_webhooks', secret, '{"ref":"x"}', svixSigned(new Date()))).toThrow(SignatureRefused);
        expect(() => verifyInboundSignature('standard_webhooks', newTriggerSecret(), body, svixSigned(new Date()))).toThrow(SignatureRefused);
        expect(() => verifyInboundSignature('standard_webhooks', secret, body, svixSigned(new Date(Date.now() - 6 * 60_000)))).toThrow(/timestamp/i);
        const { 'svix-signature': _signature, ...unsigned } = svixSigned(new Date());
        expect(() => verifyInboundSignature('standard_webhooks', secret, body, unsigned)).toThrow(/webhook-signature \(or svix-signature\) header is missing/);
      });

      it('checks the webhook-* name where both are given: a svix-id signed alongside does not stand in for it', () => {
        // A captured Svix call with a webhook-id added (to dodge de-duplication, which keys on webhook-id first) fails.
        const headers = { ...svixSigned(new Date()), 'webhook-id': 'msg_other' };
        expect(() => verifyInboundSignature('standard_webhooks', secret, body, headers)).toThrow(SignatureRefused);
      });
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
