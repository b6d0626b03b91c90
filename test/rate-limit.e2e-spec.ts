import { expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const LIMIT = 5;
const WINDOW_SECONDS = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Per-key rate limiting at the gateway, shared by every gateway replica through Redis. */
describe('Rate limiting', () => {
  let system: TestSystem;

  beforeAll(async () => {
    system = await TestSystem.start({
      gateways: 2,
      gatewayEnv: { RATE_LIMIT_REQUESTS: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS) },
    });
  });
  afterAll(() => system.stop());

  /** Alternates between the two gateways, so the count must be shared to hold. */
  const me = (user: User, nth: number) => http(system.url(nth % 2), 'GET', '/v1/me', { key: user.key });

  it('counts a key across both gateways and answers 429 with Retry-After once the allowance is used', async () => {
    const user = await freshUser(system, 'limited');
    const allowed = [];
    for (let i = 0; i < LIMIT; i++) allowed.push(await me(user, i));
    expect(allowed.map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
    expect(allowed.map((r) => Number(r.headers.get('ratelimit-remaining')))).toEqual([4, 3, 2, 1, 0]);
    expect(allowed.every((r) => r.headers.get('ratelimit-limit') === String(LIMIT))).toBe(true);

    const refused = await me(user, LIMIT);
    expectProblem(refused, 429);
    expect(refused.body.type).toBe('urn:aas:problem:too-many-requests');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);

    await sleep(retryAfter * 1000 + 200);
    expect((await me(user, 0)).status).toBe(200);
  });

  it('gives every key its own allowance', async () => {
    const busy = await freshUser(system, 'busy');
    const other = await freshUser(system, 'other');
    for (let i = 0; i <= LIMIT; i++) await me(busy, i);
    expect((await me(busy, 0)).status).toBe(429);
    expect((await me(other, 0)).status).toBe(200);
  });

  it('authenticates before limiting, and leaves unauthenticated paths alone', async () => {
    for (let i = 0; i < LIMIT * 2; i++) {
      expectProblem(await http(system.url(), 'GET', '/v1/me', { key: 'aas_not-a-real-key' }), 401);
      expect((await http(system.url(), 'GET', '/healthz')).status).toBe(200);
    }
  });
});
