import { validateEnv } from '@aas/platform';
import { GatewayEnv } from './gateway.env';
import { parseTrustProxy } from './trust-proxy';

describe(parseTrustProxy.name, () => {
  it('reads false and a list of proxies', () => {
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy(' 10.0.0.0/8, 192.0.2.1 ,loopback,fd00::/8')).toEqual(['10.0.0.0/8', '192.0.2.1', 'loopback', 'fd00::/8']);
  });

  it.each([
    ['true', /name the proxies/],
    ['1', /hop count/],
    ['10.0.0.0/33', /not an address/],
    ['proxy.internal', /not an address/],
    [' , ', /no proxy address/],
  ])('refuses %j', (value, message) => {
    expect(() => parseTrustProxy(value)).toThrow(message);
  });

  it('stops the gateway at start with a message naming the setting', () => {
    expect(() => validateEnv(GatewayEnv, { TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY must be false or a comma-separated list/);
    expect(validateEnv(GatewayEnv, { PUBLIC_BASE_URL: 'http://localhost:3000' }).TRUST_PROXY).toBe('false');
  });
});
