import { validateEnv } from '@aas/platform';
import { GatewayEnv } from './gateway.env';

describe(GatewayEnv.name, () => {
  const base = { PUBLIC_BASE_URL: 'https://aas.example.com' };

  it('refuses to start without PUBLIC_BASE_URL, so no URL is built from a Host header', () => {
    expect(() => validateEnv(GatewayEnv, {})).toThrow(/PUBLIC_BASE_URL must be set/);
    expect(() => validateEnv(GatewayEnv, { PUBLIC_BASE_URL: 'aas.example.com' })).toThrow(/PUBLIC_BASE_URL/);
    expect(() => validateEnv(GatewayEnv, { PUBLIC_BASE_URL: 'https://aas.example.com/?x=1' })).toThrow(/PUBLIC_BASE_URL/);
    expect(validateEnv(GatewayEnv, base).PUBLIC_BASE_URL).toBe('https://aas.example.com');
  });

  it('has bounded edge timeouts and a per-address connection cap by default', () => {
    expect(validateEnv(GatewayEnv, base)).toMatchObject({
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      HTTP_REQUEST_TIMEOUT_MS: 30_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 5_000,
      HTTP_CONNECTIONS_PER_ADDRESS: 256,
    });
  });

  it('refuses a request timeout below the headers timeout, and timeouts out of range', () => {
    expect(() => validateEnv(GatewayEnv, { ...base, HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4000' })).toThrow(
      /HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS/,
    );
    expect(() => validateEnv(GatewayEnv, { ...base, HTTP_HEADERS_TIMEOUT_MS: '0' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS/);
    expect(() => validateEnv(GatewayEnv, { ...base, HTTP_CONNECTIONS_PER_ADDRESS: '-1' })).toThrow(/HTTP_CONNECTIONS_PER_ADDRESS/);
  });
});
