import 'reflect-metadata';
import { validateEnv } from '@aas/platform';
import { WebhooksEnv } from './webhooks.env';

const KEY = Buffer.alloc(32, 1).toString('base64');

describe('WebhooksEnv: the fairness settings', () => {
  it('defaults to 4 per webhook, 25 per user, a circuit after 5 failures for 1 to 10 minutes', () => {
    expect(validateEnv(WebhooksEnv, { WEBHOOK_SECRET_KEY: KEY })).toMatchObject({
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: 4,
      WEBHOOK_MAX_IN_FLIGHT_PER_USER: 25,
      WEBHOOK_CIRCUIT_FAILURE_THRESHOLD: 5,
      WEBHOOK_CIRCUIT_COOLDOWN_MS: 60_000,
      WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: 600_000,
    });
  });

  it('takes 0 as off for the limits and the circuit breaker', () => {
    const env = { WEBHOOK_SECRET_KEY: KEY, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '0', WEBHOOK_MAX_IN_FLIGHT_PER_USER: '0', WEBHOOK_CIRCUIT_FAILURE_THRESHOLD: '0' };
    expect(validateEnv(WebhooksEnv, env)).toMatchObject({ WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: 0, WEBHOOK_CIRCUIT_FAILURE_THRESHOLD: 0 });
  });

  it('refuses a longest cool-down below the cool-down, naming both', () => {
    const env = { WEBHOOK_SECRET_KEY: KEY, WEBHOOK_CIRCUIT_COOLDOWN_MS: '120000', WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: '60000' };
    expect(() => validateEnv(WebhooksEnv, env)).toThrow(/WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS must be at least WEBHOOK_CIRCUIT_COOLDOWN_MS/);
    expect(validateEnv(WebhooksEnv, { ...env, WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: '120000' }).WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS).toBe(120_000);
  });

  it.each([
    ['WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', '-1'],
    ['WEBHOOK_MAX_IN_FLIGHT_PER_USER', '2.5'],
    ['WEBHOOK_CIRCUIT_FAILURE_THRESHOLD', 'many'],
    ['WEBHOOK_CIRCUIT_COOLDOWN_MS', '50'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => validateEnv(WebhooksEnv, { WEBHOOK_SECRET_KEY: KEY, [name]: value })).toThrow(new RegExp(name));
  });
});
