import { fakeWebhooksConfig } from '../config/webhooks-config.fake';
import { FakeHostLookup } from './host-lookup.fake';
import { InvalidWebhookUrlError } from './ssrf-guard';
import { HostLookup, URL_LOOKUP_TIMEOUT_MS, URL_LOOKUPS_IN_FLIGHT, WebhookUrlCheck } from './webhook-url-check';

describe(WebhookUrlCheck.name, () => {
  function setup(allowPrivateNetworks = false) {
    const hosts = new FakeHostLookup();
    hosts.names.set('internal.example.com', ['10.0.0.7']);
    return { hosts, sut: new WebhookUrlCheck(hosts, fakeWebhooksConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: allowPrivateNetworks })) };
  }

  it('keeps the syntax rules whatever the setting', async () => {
    for (const allow of [false, true]) {
      await expect(setup(allow).sut.assertAllowed('ftp://receiver.example.com/')).rejects.toBeInstanceOf(InvalidWebhookUrlError);
    }
  });

  it('judges a literal address as it is, IPv4 in any form the URL parser takes and IPv6 in brackets, without a look-up', async () => {
    const { hosts, sut } = setup();
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:127.0.0.1]/', 'http://[fd00:ec2::254]/', 'http://100.64.0.1/']) {
      await expect(sut.assertAllowed(url)).rejects.toThrow(/is not a public address/);
    }
    await expect(sut.assertAllowed('http://[2606:4700::1111]/')).resolves.toBeUndefined();
    expect(hosts.asked).toEqual([]);
  });

  it('does not hold a look-up that takes longer than its timeout against the URL', async () => {
    jest.useFakeTimers();
    try {
      const { hosts, sut } = setup();
      hosts.hold();
      const checked = sut.assertAllowed('http://internal.example.com/');
      await jest.advanceTimersByTimeAsync(URL_LOOKUP_TIMEOUT_MS);
      await expect(checked).resolves.toBeUndefined();
      hosts.release();
    } finally {
      jest.useRealTimers();
    }
  });

  it(`has at most ${URL_LOOKUPS_IN_FLIGHT} look-ups out, counted until they end; beyond them a name is taken unresolved`, async () => {
    const hosts = new FakeHostLookup();
    hosts.names.set('internal.example.com', ['10.0.0.7']);
    hosts.hold();
    const sut = new WebhookUrlCheck(hosts as HostLookup, fakeWebhooksConfig());
    jest.useFakeTimers();
    try {
      const slow = Array.from({ length: URL_LOOKUPS_IN_FLIGHT }, () => sut.assertAllowed('http://internal.example.com/'));
      await expect(sut.assertAllowed('http://internal.example.com/')).resolves.toBeUndefined();
      // Timed out, but their look-ups are still out: still no room.
      await jest.advanceTimersByTimeAsync(URL_LOOKUP_TIMEOUT_MS);
      await Promise.all(slow);
      await expect(sut.assertAllowed('http://internal.example.com/')).resolves.toBeUndefined();
      expect(hosts.asked).toHaveLength(URL_LOOKUPS_IN_FLIGHT);
    } finally {
      jest.useRealTimers();
    }
    hosts.release();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(sut.assertAllowed('http://internal.example.com/')).rejects.toThrow(/resolves to 10\.0\.0\.7/);
  });
});

describe(HostLookup.name, () => {
  it('resolves as connections do, /etc/hosts included', async () => {
    expect(await new HostLookup().addresses('localhost')).toContain('127.0.0.1');
  });
});
