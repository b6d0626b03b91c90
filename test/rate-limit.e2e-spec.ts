import { INestApplication } from '@nestjs/common';
import { ApiKeysService } from '../apps/agents-service/src/api-keys/api-keys.service';
import { HttpResult, expectProblem, http } from './support/http';
import { TestSystem, urlOf } from './support/test-system';
import { User, freshUser } from './support/test-users';

const LIMIT = 5;
const ADDRESS_LIMIT = 10;
const WINDOW_SECONDS = 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every request carries the X-Forwarded-For of a client address of its own test, which the
 * gateways believe from their loopback peer (TRUST_PROXY=loopback): the per-address allowances of
 * the tests stay apart although every request comes from 127.0.0.1.
 */
let nextClient = 1;
const newClientAddress = () => `203.0.113.${nextClient++}`;

/** Per-user rate limiting (all keys of a user together) and per-address limiting of what has no verified key. */
describe('Rate limiting', () => {
  let system: TestSystem;
  let untrustingGateway: INestApplication;

  beforeAll(async () => {
    const limits = {
      RATE_LIMIT_REQUESTS: String(LIMIT),
      RATE_LIMIT_UNAUTHENTICATED_REQUESTS: String(ADDRESS_LIMIT),
      RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
    };
    system = await TestSystem.start({ gateways: 2, gatewayEnv: { ...limits, TRUST_PROXY: 'loopback' } });
    untrustingGateway = await system.startGateway({ ...limits, TRUST_PROXY: 'false' });
  });
  afterAll(async () => {
    await untrustingGateway?.close();
    await system?.stop();
  });

  const get = (gateway: number, path: string, client: string, key?: string): Promise<HttpResult> =>
    http(system.url(gateway), 'GET', path, { key, headers: { 'x-forwarded-for': client } });

  function expectTooManyRequests(res: HttpResult): number {
    expectProblem(res, 429);
    expect(res.body.type).toBe('urn:aas:problem:too-many-requests');
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_SECONDS);
    return retryAfter;
  }

  /** A second key of the same user, made in agents-service as freshUser makes the first. */
  const anotherKey = async (user: User) => (await system.agents[0].get(ApiKeysService).create(user.userId, 'another')).api_key;

  it('counts a user across both gateways and answers 429 with Retry-After once the allowance is used', async () => {
    const user = await freshUser(system, 'limited');
    const client = newClientAddress();
    const me = (nth: number) => get(nth % 2, '/v1/me', client, user.key);
    const allowed = [];
    for (let i = 0; i < LIMIT; i++) allowed.push(await me(i));
    expect(allowed.map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
    expect(allowed.map((r) => Number(r.headers.get('ratelimit-remaining')))).toEqual([4, 3, 2, 1, 0]);
    expect(allowed.every((r) => r.headers.get('ratelimit-limit') === String(LIMIT))).toBe(true);

    const refused = await me(LIMIT);
    const retryAfter = expectTooManyRequests(refused);
    expect(refused.body.detail).toContain(`more than ${LIMIT} requests`);
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');

    await sleep(retryAfter * 1000 + 200);
    expect((await me(0)).status).toBe(200);
  });

  it("shares one allowance among all of a user's keys, and a user at its limit does not slow another", async () => {
    const a = await freshUser(system, 'many-keys');
    const keys = [a.key, await anotherKey(a), await anotherKey(a), await anotherKey(a)];
    const b = await freshUser(system, 'bystander');
    const client = newClientAddress();

    const results = [];
    for (let i = 0; i < LIMIT; i++) results.push(await get(0, '/v1/me', client, keys[i % keys.length]));
    expect(results.map((r) => r.status)).toEqual(Array(LIMIT).fill(200));
    for (const key of keys) expectTooManyRequests(await get(0, '/v1/me', client, key));

    // B, from the same address and from another, still has its whole allowance.
    const fromSameAddress = await get(0, '/v1/me', client, b.key);
    expect(fromSameAddress.status).toBe(200);
    expect(fromSameAddress.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
    expect((await get(1, '/v1/agents', newClientAddress(), b.key)).status).toBe(200);
  });

  it('limits a flood of requests without a verified key from one address, and only from that address', async () => {
    const flooder = newClientAddress();
    const user = await freshUser(system, 'behind-the-flood');
    // Verified on gateway 0 before the flood: a key the gateway holds costs its address nothing.
    expect((await get(0, '/v1/me', flooder, user.key)).status).toBe(200);
    const spent = 1; // that look-up

    const bad = ['aas_not-a-real-key', 'made-up-bootstrap-style-key', ''];
    const answers = [];
    for (let i = spent; i < ADDRESS_LIMIT; i++) answers.push(await get(0, '/v1/me', flooder, bad[i % bad.length]));
    expect(answers.map((r) => r.status)).toEqual(Array(ADDRESS_LIMIT - spent).fill(401));
    expect(answers.map((r) => r.headers.get('ratelimit-remaining'))).toEqual(
      Array.from({ length: ADDRESS_LIMIT - spent }, (_, i) => String(ADDRESS_LIMIT - spent - 1 - i)),
    );

    for (const key of [...bad, undefined]) expectTooManyRequests(await get(0, '/v1/me', flooder, key));
    // The count is shared by every gateway, and covers the unauthenticated /metrics as well.
    expectTooManyRequests(await get(1, '/v1/agents', flooder, 'aas_still-not-a-key'));
    expectTooManyRequests(await get(1, '/metrics', flooder));
    // A key never seen before is refused before it costs agents-service a look-up.
    expectTooManyRequests(await get(0, '/v1/me', flooder, await anotherKey(user)));

    // The probes are never limited; the verified key still works; another address is untouched.
    expect((await get(0, '/healthz', flooder)).status).toBe(200);
    expect((await get(0, '/readyz', flooder)).status).toBe(200);
    expect((await get(0, '/v1/me', flooder, user.key)).status).toBe(200);
    expectProblem(await get(0, '/v1/me', newClientAddress(), 'aas_not-a-real-key'), 401);
    expect((await get(1, '/metrics', newClientAddress())).status).toBe(200);
  });

  it('never counts a bad key against the user whose allowance it is not', async () => {
    const user = await freshUser(system, 'untouched');
    for (let i = 0; i < LIMIT * 2; i++) await get(0, '/v1/me', newClientAddress(), `aas_guess-${i}`);
    const res = await get(0, '/v1/me', newClientAddress(), user.key);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe(String(LIMIT - 1));
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const base = urlOf(untrustingGateway);
    const answers = [];
    for (let i = 0; i <= ADDRESS_LIMIT; i++) {
      answers.push(await http(base, 'GET', '/v1/me', { key: 'aas_not-a-real-key', headers: { 'x-forwarded-for': newClientAddress() } }));
    }
    expect(answers.slice(0, ADDRESS_LIMIT).map((r) => r.status)).toEqual(Array(ADDRESS_LIMIT).fill(401));
    expectTooManyRequests(answers[ADDRESS_LIMIT]);
  });
});
