/** @run-alone it bounds another tenant's latency under attack: a test file running beside it would skew that latency. */
import { AgentsPatterns, csrfTokenFor, generateApiKey, generateSessionToken } from '@aas/contracts';
import { randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { Registry } from 'prom-client';
import { Agent, fetch } from 'undici';
import { ConsoleSessionsService } from '../../apps/agents-service/src/console-sessions/console-sessions.service';
import { UsersService } from '../../apps/agents-service/src/users/users.service';
import { runCli } from '../support/admin-cli';
import { consoleLogin, sessionCookieOf, withSession } from '../support/console-session';
import { HttpResult, expectProblem, http } from '../support/http';
import { observerPool } from '../support/isolated-infra';
import { TestSystem, urlOf } from '../support/test-system';
import { freshUser } from '../support/test-users';
import { expectVictimUnharmed, victimUnderAttack } from '../support/victim-latency';

/*
 * Issue #24, items 6 and 7: limits charged before agents-service is asked, and console sign-in that a
 * stranger cannot turn against its owner. Every address is a loopback address of its own
 * (127.0.0.x as the connection's source), so the gateway counts them apart without TRUST_PROXY.
 */
const ADDRESS_LIMIT = 100;
const PASSWORD = 'the owner knows this one';

/** HTTP from one source address; answers the status and the parsed body, as test/support/http does. */
function from(address: string) {
  const dispatcher = new Agent({ localAddress: address });
  const call = async (base: string, method: string, path: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<HttpResult> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(base + path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), dispatcher });
    const text = await response.text();
    // undici's Headers and the global one differ only in their typings.
    return { status: response.status, headers: response.headers as unknown as Headers, body: text ? JSON.parse(text) : undefined };
  };
  return { call, close: () => dispatcher.close() };
}

describe('Sign-in and rate limits under attack', () => {
  let system: TestSystem;
  let base: string;
  const clients: Array<ReturnType<typeof from>> = [];
  const client = (address: string) => {
    const made = from(address);
    clients.push(made);
    return made.call;
  };

  beforeAll(async () => {
    system = await TestSystem.start({
      gatewayEnv: { RATE_LIMIT_UNAUTHENTICATED_REQUESTS: String(ADDRESS_LIMIT), RATE_LIMIT_WINDOW_SECONDS: '300', RATE_LIMIT_REQUESTS: '1000000' },
    });
    base = system.url();
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await system?.stop();
  });

  /** A user who can sign in to the console, made as the admin command line makes one. */
  async function consoleUser(label: string): Promise<{ userId: string; email: string }> {
    const email = `${label}-${randomUUID()}@example.test`;
    const user = await system.agents[0].get(UsersService).createUser(email);
    await system.agents[0].get(ConsoleSessionsService).setPassword(email, PASSWORD);
    return { userId: user.id, email };
  }

  /** How many requests of this pattern agents-service has handled (its aas_rpc_request_duration_seconds). */
  async function handled(pattern: string): Promise<number> {
    const metric = await system.agents[0].get(Registry).getSingleMetric('aas_rpc_request_duration_seconds')!.get();
    return metric.values
      .filter((v) => (v as { metricName?: string }).metricName?.endsWith('_count') && v.labels.pattern === pattern)
      .reduce((sum, v) => sum + v.value, 0);
  }

  it("(a) lets the owner sign in at once from a clean address while another address fails for the owner's email, and slows and refuses that one", async () => {
    const victim = await consoleUser('victim');
    const attacker = client('127.0.0.2');
    const accomplice = client('127.0.0.3');
    const owner = client('127.0.0.5');
    const guess = (as: typeof attacker, password = 'not the password') => as(base, 'POST', '/v1/console/login', { body: { email: victim.email, password } });

    // Five failures a minute, then the address waits (LOGIN_FAILURES_PER_MINUTE).
    for (let i = 0; i < 5; i++) expectProblem(await guess(attacker), 401);
    const slowed = await guess(attacker);
    expectProblem(slowed, 429);
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(0);
    // Ten failures of the email from all addresses (LOGIN_RATE_LIMIT_PER_EMAIL): an address that failed for it is refused for it,
    // even with the right password; an address that has not failed still gets its attempt.
    for (let i = 0; i < 5; i++) expectProblem(await guess(accomplice), 401);
    expectProblem(await guess(accomplice, PASSWORD), 429);
    const spreadOut = client('127.0.0.4');
    expectProblem(await guess(spreadOut), 401);
    expectProblem(await guess(spreadOut), 429);

    // The owner, from an address without failures, is not refused: at once, with the right password.
    const signedIn = await owner(base, 'POST', '/v1/console/login', { body: { email: victim.email, password: PASSWORD } });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user_id).toBe(victim.userId);

    // While the attack goes on, the owner keeps signing in, and another user's API calls keep their pace.
    const bystander = await freshUser(system, 'bystander-a');
    const attackers = [attacker, accomplice, spreadOut];
    const ownerSignIns: number[] = [];
    const result = await victimUnderAttack(
      async () => (await http(base, 'GET', '/v1/agents', { key: bystander.key })).status,
      async (signal) => {
        const statuses: number[] = [];
        const flood = async () => {
          for (let i = 0; !signal.aborted; i++) statuses.push((await guess(attackers[i % attackers.length])).status);
        };
        const signIns = async () => {
          while (!signal.aborted) ownerSignIns.push((await owner(base, 'POST', '/v1/console/login', { body: { email: victim.email, password: PASSWORD } })).status);
        };
        await Promise.all([flood(), signIns()]);
        return statuses;
      },
    );
    expectVictimUnharmed(result);
    const attackStatuses = result.attackResult as number[];
    expect(attackStatuses.length).toBeGreaterThan(0);
    expect(attackStatuses.every((s) => s === 429)).toBe(true);
    expect(ownerSignIns.length).toBeGreaterThan(0);
    expect(ownerSignIns.every((s) => s === 200)).toBe(true);
  });

  it('(b) cuts off made-up session cookies and API keys from one address at its limit before agents-service sees more, while a user with a key keeps its pace', async () => {
    const bystander = await freshUser(system, 'bystander');
    // The bystander's key is verified once, and then held by the gateway: it costs no address anything.
    expect((await http(base, 'GET', '/v1/agents', { key: bystander.key })).status).toBe(200);
    const flooder = client('127.0.0.6');
    const sessionsBefore = await handled(AgentsPatterns.VerifyConsoleSession);
    const keysBefore = await handled(AgentsPatterns.VerifyApiKey);

    const inventedCookie = () => {
      const token = generateSessionToken();
      return { cookie: `aas_session=${token}`, 'x-csrf-token': csrfTokenFor(token) };
    };
    const invent = (i: number) => (i % 2 === 0 ? inventedCookie() : { 'x-api-key': generateApiKey().token });
    const send = async (i: number) => (await flooder(base, 'GET', '/v1/agents', { headers: invent(i) })).status;

    // Up to its limit, each made-up credential costs a look-up (a 401); then the address is refused (429) before any.
    const untilRefused: number[] = [];
    for (let i = 0; !untilRefused.includes(429) && i < ADDRESS_LIMIT * 2; i++) untilRefused.push(await send(i));
    // From then on, its flood costs agents-service nothing, and the bystander keeps its pace.
    const result = await victimUnderAttack(
      async () => (await http(base, 'GET', '/v1/agents', { key: bystander.key })).status,
      async (signal) => {
        const statuses: number[] = [];
        const lane = async () => {
          while (!signal.aborted) statuses.push(await send(statuses.length));
        };
        await Promise.all([lane(), lane(), lane(), lane()]);
        return statuses;
      },
      { durationMs: 2000 },
    );

    const flood = result.attackResult as number[];
    const lookUps = (await handled(AgentsPatterns.VerifyConsoleSession)) - sessionsBefore + (await handled(AgentsPatterns.VerifyApiKey)) - keysBefore;
    expect(lookUps).toBeGreaterThan(0);
    expect(lookUps).toBeLessThanOrEqual(ADDRESS_LIMIT);
    // Each look-up was a 401; everything else was refused before agents-service was asked.
    expect([...untilRefused, ...flood].filter((s) => s === 401)).toHaveLength(lookUps);
    expect(flood.length).toBeGreaterThan(ADDRESS_LIMIT);
    expect(flood.filter((s) => s !== 429)).toEqual([]);
    expectVictimUnharmed(result);
  });

  it('(c) a password reset lists the keys console sessions made, and revokes those (not the command line\'s) with --revoke-session-keys', async () => {
    const user = await consoleUser('reset');
    const made = await runCli(system, ['api-keys', 'create', '--user', user.userId, '--name', 'made by the cli']);
    const session = await consoleLogin(base, user.email, PASSWORD);
    const bySession = await withSession(base, session, 'POST', '/api/public/v1/access-api-keys', { body: { name: 'made by a session' } });
    expect(bySession.status).toBe(201);
    for (const key of [made.api_key, bySession.body.api_key]) expect((await http(base, 'GET', '/v1/me', { key })).status).toBe(200);

    const reset = await runCli(system, ['users', 'set-password', '--email', user.email, '--revoke-session-keys'], 'a brand new password');
    expect(reset).toEqual({
      user_id: user.userId,
      sessions_ended: 1,
      session_made_keys: [{ key_id: bySession.body.key_id, name: 'made by a session', display_prefix: bySession.body.display_prefix, created_at: expect.any(String) }],
      session_made_keys_revoked: true,
    });
    expectProblem(await http(base, 'GET', '/v1/me', { key: bySession.body.api_key }), 401);
    expect((await http(base, 'GET', '/v1/me', { key: made.api_key })).status).toBe(200);
    expectProblem(await withSession(base, session, 'GET', '/v1/me'), 401);
  });

  it('(d) signs in with a password hashed by the earlier scrypt scheme, and replaces the hash with argon2id', async () => {
    const user = await consoleUser('legacy');
    const salt = randomBytes(16);
    const key = scryptSync(PASSWORD, salt, 64, { N: 2 ** 15, r: 8, p: 1, maxmem: 128 * 2 ** 15 * 8 * 2 });
    const legacy = ['scrypt', 2 ** 15, 8, 1, salt.toString('base64'), key.toString('base64')].join('$');
    const pool = observerPool(system.infra.databaseUrl, 'agents');
    const storedHash = async () => (await pool.query('SELECT password_hash FROM users WHERE id = $1', [user.userId])).rows[0].password_hash as string;
    try {
      await pool.query('UPDATE users SET password_hash = $2 WHERE id = $1', [user.userId, legacy]);
      expect((await consoleLogin(base, user.email, PASSWORD)).userId).toBe(user.userId);
      const rehashed = await storedHash();
      expect(rehashed).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect((await consoleLogin(base, user.email, PASSWORD)).userId).toBe(user.userId);
      expect(await storedHash()).toBe(rehashed);
      expectProblem(await http(base, 'POST', '/v1/console/login', { body: { email: user.email, password: `${PASSWORD}!` } }), 401);
    } finally {
      await pool.end();
    }
  });

  it('(e) over HTTPS names the session cookie __Host-aas_session, Secure, and reads no plain aas_session then', async () => {
    const user = await consoleUser('https');
    // A gateway whose PUBLIC_BASE_URL is https:// (behind a proxy that ends TLS): the cookie follows that scheme.
    const gateway = await system.startGateway({ PUBLIC_BASE_URL: 'https://aas.example.test' });
    const base = urlOf(gateway);
    const signedIn = await http(base, 'POST', '/v1/console/login', { body: { email: user.email, password: PASSWORD } });
    expect(signedIn.status).toBe(200);
    const cookie = sessionCookieOf(signedIn);
    expect(cookie.pair).toMatch(/^__Host-aas_session=/);
    expect(cookie.attributes).toMatch(/Secure/);
    expect(cookie.attributes).toMatch(/Path=\//);
    expect(cookie.attributes).not.toMatch(/Domain/);
    const csrf = signedIn.body.csrf_token;
    const me = (cookieHeader: string) => http(base, 'GET', '/v1/me', { headers: { cookie: cookieHeader, 'x-csrf-token': csrf } });
    expect((await me(cookie.pair)).status).toBe(200);
    // The same token under the plain name, as a sibling subdomain could plant it, is no session over HTTPS.
    expectProblem(await me(cookie.pair.replace('__Host-', '')), 401);
    await gateway.close();
  });
});
