import { withoutSecretHeaders } from './header-secrets';

describe(withoutSecretHeaders.name, () => {
  it('withholds the headers whose names say they carry a credential, and keeps the rest', () => {
    const headers = {
      'x-hub-signature-256': 'sha256=…',
      'x-hub-signature': 'sha1=…',
      'webhook-signature': 'v1,…',
      'svix-signature': 'v1,…',
      'stripe-signature': 't=…',
      'x-gitlab-token': 'glpat-…',
      'x-shopify-hmac-sha256': '…',
      'x-webhook-secret': 's',
      authorization: 'Basic …',
      'x-amz-security-token': '…',
      'x-api-key': 'k',
      'x-github-event': 'push',
      'x-github-delivery': 'd-1',
      'webhook-id': 'msg_1',
      'webhook-timestamp': '1700000000',
      'svix-id': 'msg_2',
      'svix-timestamp': '1700000000',
      'content-type': 'application/json',
      'user-agent': 'GitHub-Hookshot/1',
    };
    expect(Object.keys(withoutSecretHeaders(headers))).toEqual([
      'x-github-event',
      'x-github-delivery',
      'webhook-id',
      'webhook-timestamp',
      'svix-id',
      'svix-timestamp',
      'content-type',
      'user-agent',
    ]);
  });
});
