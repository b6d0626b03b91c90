import { INestApplication } from '@nestjs/common';
import { runCli } from '../support/admin-cli';
import { ConsoleSession, consoleLogin, sessionCookieOf, withSession } from '../support/console-session';
import { expectProblem, http } from '../support/http';
import { TestSystem, urlOf } from '../support/test-system';

/*
 * Issue #19, console sign-in through the gateway's HTTP API (the browser flows are in
 * console-browser.e2e-spec.ts): first-run setup with the one-time token, sessions as
 * HttpOnly cookies that count on the API only with their CSRF header, login limits,
 * logout, password resets, and a second user who reaches nothing of the first.
 */
describe('Console sign-in', () => {
  const PASSWORD = 'correct horse battery staple';
  let system: TestSystem;
  let base: string;
  let first: ConsoleSession;

  beforeAll(async () => {
    system = await TestSystem.start({ gatewayEnv: { LOGIN_RATE_LIMIT_PER_EMAIL: '3', LOGIN_RATE_LIMIT_PER_ADDRESS: '1000', LOGIN_FAILURES_PER_MINUTE: '1000' } });
    base = system.url();
  });
  afterAll(() => system.stop());

  describe('first run', () => {
    it('is open on a fresh install, and refuses a made-up setup token', async () => {
      expect((await http(base, 'GET', '/v1/console/setup')).body).toEqual({ setup_required: true });
      const guessed = await http(base, 'POST', '/v1/console/setup', {
        body: { setup_token: 'aas_setup_guess', email: 'first@example.test', password: PASSWORD },
      });
      expectProblem(guessed, 401);
      expect(guessed.headers.getSetCookie()).toEqual([]);
    });

    it('creates the first user with the printed token, once, and is gone afterwards', async () => {
      const stale = (await runCli(system, ['setup-token'])).setup_token;
      const issued = await runCli(system, ['setup-token']);
      expect(issued.setup_token).toMatch(/^aas_setup_[A-Za-z0-9_-]{43}$/);
      expect(Date.parse(issued.expires_at)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
      // A newer token replaces the older one.
      expectProblem(await http(base, 'POST', '/v1/console/setup', { body: { setup_token: stale, email: 'first@example.test', password: PASSWORD } }), 401);
      expectProblem(await http(base, 'POST', '/v1/console/setup', { body: { setup_token: issued.setup_token, email: 'first@example.test', password: 'short' } }), 400);

      const created = await http(base, 'POST', '/v1/console/setup', {
        body: { setup_token: issued.setup_token, email: 'First@Example.test', password: PASSWORD },
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ user_id: expect.any(String), email: 'first@example.test', csrf_token: expect.any(String), expires_at: expect.any(String) });
      const cookie = sessionCookieOf(created);
      expect(cookie.attributes).toMatch(/HttpOnly/);
      expect(cookie.attributes).toMatch(/SameSite=Strict/);
      expect(cookie.attributes).toMatch(/Path=\//);
      expect(cookie.attributes).not.toMatch(/Secure/);
      expect(Date.parse(created.body.expires_at) - Date.now()).toBeGreaterThan(11 * 3_600_000);
      first = { cookie: cookie.pair, csrf: created.body.csrf_token, userId: created.body.user_id, email: 'first@example.test' };
      expect((await withSession(base, first, 'GET', '/v1/me')).body.user_id).toBe(first.userId);

      // Usable once; and once a user can sign in, setup is over for any token.
      expectProblem(await http(base, 'POST', '/v1/console/setup', { body: { setup_token: issued.setup_token, email: 'second@example.test', password: PASSWORD } }), 404);
      expect((await http(base, 'GET', '/v1/console/setup')).body).toEqual({ setup_required: false });
      await expect(runCli(system, ['setup-token'])).rejects.toThrow(/finished/);
    });

    it('stores the password as an argon2id hash and the session and setup token only as hashes', async () => {
      const pool = new (await import('pg')).Pool({ connectionString: system.infra.databaseUrl, options: '-c search_path=agents' });
      try {
        const user = (await pool.query('SELECT password_hash FROM users WHERE id = $1', [first.userId])).rows[0];
        expect(user.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
        expect(user.password_hash).not.toContain(PASSWORD);
        const token = first.cookie.split('=')[1];
        const sessions = (await pool.query('SELECT token_hash FROM console_sessions WHERE user_id = $1', [first.userId])).rows;
        expect(sessions.map((s) => s.token_hash)).not.toContain(token);
        expect(sessions).toHaveLength(1);
        expect((await pool.query('SELECT count(*)::int AS n FROM console_setup_tokens')).rows[0].n).toBe(0);
      } finally {
        await pool.end();
      }
    });
  });

  describe('the session on the API', () => {
    it('authenticates the console with the cookie and its CSRF header, and reads the session back', async () => {
      const session = await http(base, 'GET', '/v1/console/session', { headers: { cookie: first.cookie } });
      expect(session.status).toBe(200);
      expect(session.body).toEqual(expect.objectContaining({ user_id: first.userId, email: 'first@example.test', csrf_token: first.csrf }));
      expect((await withSession(base, first, 'GET', '/v1/agents')).status).toBe(200);
    });

    it('does nothing with the cookie alone, a wrong CSRF token, or from another origin', async () => {
      const before = (await withSession(base, first, 'GET', '/api/public/v1/access-api-keys')).body.keys.length;
      expectProblem(await withSession(base, first, 'POST', '/api/public/v1/access-api-keys', { body: { name: 'x' }, csrf: null }), 403);
      expectProblem(await withSession(base, first, 'POST', '/v1/agents', { body: {}, csrf: null }), 403);
      expectProblem(await withSession(base, first, 'GET', '/v1/agents', { csrf: null }), 403);
      expectProblem(await withSession(base, first, 'POST', '/v1/agents', { body: {}, csrf: `${first.csrf.slice(0, -1)}x` }), 403);
      expectProblem(await withSession(base, first, 'POST', '/v1/agents', { body: {}, headers: { origin: 'https://evil.example' } }), 403);
      expectProblem(await withSession(base, first, 'POST', '/v1/agents', { body: {}, headers: { 'sec-fetch-site': 'cross-site' } }), 403);
      expect((await withSession(base, first, 'GET', '/api/public/v1/access-api-keys')).body.keys).toHaveLength(before);
      expect((await withSession(base, first, 'GET', '/v1/agents')).body.agents).toEqual([]);
    });

    it("is not a program's credential: the CSRF header without the cookie, or a bearer token, is a 401", async () => {
      expectProblem(await http(base, 'GET', '/v1/me', { headers: { 'x-csrf-token': first.csrf } }), 401);
      expectProblem(await http(base, 'GET', '/v1/me', { headers: { authorization: `Bearer ${first.cookie.split('=')[1]}` } }), 401);
    });

    it('creates the first API key, which then works for programs on its own', async () => {
      const created = await withSession(base, first, 'POST', '/api/public/v1/access-api-keys', { body: { name: 'first key' } });
      expect(created.status).toBe(201);
      expect((await http(base, 'GET', '/v1/me', { key: created.body.api_key })).body.user_id).toBe(first.userId);
      const listed = await withSession(base, first, 'GET', '/api/public/v1/access-api-keys');
      expect(listed.body.keys.map((k: { key_id: string }) => k.key_id)).toContain(created.body.key_id);
    });
  });

  describe('sign-in', () => {
    it('answers an unknown email and a wrong password the same, and signs in with the right one', async () => {
      const unknown = await http(base, 'POST', '/v1/console/login', { body: { email: 'nobody@example.test', password: PASSWORD } });
      const wrong = await http(base, 'POST', '/v1/console/login', { body: { email: first.email, password: `${PASSWORD}!` } });
      expectProblem(unknown, 401);
      expectProblem(wrong, 401);
      expect(unknown.body.detail).toBe(wrong.body.detail);
      expect(unknown.headers.getSetCookie()).toEqual([]);
      const again = await consoleLogin(base, 'FIRST@example.test', PASSWORD);
      expect(again.userId).toBe(first.userId);
      expect(again.cookie).not.toBe(first.cookie);
    });

    it('refuses an address that failed for an email failed too often (unknown or not, the same); its success clears its own record', async () => {
      await runCli(system, ['users', 'create', '--email', 'limited@example.test']);
      await runCli(system, ['users', 'set-password', '--email', 'limited@example.test'], PASSWORD);
      const attempt = (email: string, password: string) => http(base, 'POST', '/v1/console/login', { body: { email, password } });
      for (let i = 0; i < 2; i++) expectProblem(await attempt('limited@example.test', 'wrong password!'), 401);
      expect((await attempt('limited@example.test', PASSWORD)).status).toBe(200);
      // The third failure takes the email to its limit (3): an address that failed for it is refused for it from then on.
      for (const [email, failures] of [['limited@example.test', 1], ['ghost@example.test', 3]] as const) {
        for (let i = 0; i < failures; i++) expectProblem(await attempt(email, 'wrong password!'), 401);
        const limited = await attempt(email, PASSWORD);
        expectProblem(limited, 429);
        expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(limited.body.detail).toBe('Too many sign-in attempts; wait before trying again');
      }
      // Another user's sign-in is not held back by it.
      expect((await attempt(first.email, PASSWORD)).status).toBe(200);
    });

    it('limits attempts per client address, whatever the email', async () => {
      let gateway: INestApplication | undefined;
      try {
        gateway = await system.startGateway({ TRUST_PROXY: '127.0.0.1,::1', LOGIN_RATE_LIMIT_PER_ADDRESS: '2' });
        const from = { 'x-forwarded-for': '203.0.113.77' };
        const attempt = (n: number) => http(urlOf(gateway!), 'POST', '/v1/console/login', { body: { email: `spray${n}@example.test`, password: PASSWORD }, headers: from });
        expectProblem(await attempt(1), 401);
        expectProblem(await attempt(2), 401);
        expectProblem(await attempt(3), 429);
        const elsewhere = await http(urlOf(gateway), 'POST', '/v1/console/login', {
          body: { email: 'spray4@example.test', password: PASSWORD },
          headers: { 'x-forwarded-for': '203.0.113.78' },
        });
        expectProblem(elsewhere, 401);
      } finally {
        await gateway?.close();
      }
    });

    it('refuses a sign-in posted from another origin', async () => {
      expectProblem(await http(base, 'POST', '/v1/console/login', { body: { email: first.email, password: PASSWORD }, headers: { origin: 'https://evil.example' } }), 403);
    });
  });

  describe('a second user', () => {
    let second: ConsoleSession;
    let firstAgentId: string;

    beforeAll(async () => {
      const made = await runCli(system, ['users', 'create', '--email', 'second@example.test']);
      const set = await runCli(system, ['users', 'set-password', '--email', 'second@example.test'], 'second user password');
      expect(set).toEqual({ user_id: made.user_id, sessions_ended: 0, session_made_keys: [], session_made_keys_revoked: false });
      second = await consoleLogin(base, 'second@example.test', 'second user password');
      firstAgentId = (await withSession(base, first, 'POST', '/v1/agents', { body: {} })).body.agent.agent_id;
    });

    it("sees none of the first user's data through its session", async () => {
      expect((await withSession(base, second, 'GET', '/v1/console/session')).body.user_id).toBe(second.userId);
      expectProblem(await withSession(base, second, 'GET', `/v1/agents/${firstAgentId}`), 404);
      expectProblem(await withSession(base, second, 'DELETE', `/v1/agents/${firstAgentId}`), 404);
      expect((await withSession(base, second, 'GET', '/v1/agents')).body.agents).toEqual([]);
      const firstKeys = (await withSession(base, first, 'GET', '/api/public/v1/access-api-keys')).body.keys;
      const secondKeys = (await withSession(base, second, 'GET', '/api/public/v1/access-api-keys')).body.keys;
      expect(secondKeys.map((k: { name: string }) => k.name)).toEqual(['default']);
      expect(secondKeys.map((k: { key_id: string }) => k.key_id)).not.toContain(firstKeys[0].key_id);
      expectProblem(await withSession(base, second, 'DELETE', `/api/public/v1/access-api-keys/${firstKeys[0].key_id}`), 404);
      expect((await withSession(base, first, 'GET', `/v1/agents/${firstAgentId}`)).status).toBe(200);
    });

    it("cannot use the first user's CSRF token with its own cookie, nor end the first user's session", async () => {
      expectProblem(await withSession(base, second, 'GET', '/v1/agents', { csrf: first.csrf }), 403);
      expectProblem(await http(base, 'POST', '/v1/console/logout', { headers: { cookie: second.cookie, 'x-csrf-token': first.csrf } }), 403);
      expect((await withSession(base, first, 'GET', '/v1/me')).status).toBe(200);
    });

    it('cannot re-run setup to take over the install', async () => {
      expectProblem(await http(base, 'POST', '/v1/console/setup', { body: { setup_token: 'aas_setup_x', email: 'second@example.test', password: PASSWORD } }), 404);
    });
  });

  describe('sign-out and password resets', () => {
    it('signs out only with the CSRF header; the session then ends and the cookie is cleared', async () => {
      const session = await consoleLogin(base, first.email, PASSWORD);
      expectProblem(await http(base, 'POST', '/v1/console/logout', { headers: { cookie: session.cookie } }), 403);
      expect((await withSession(base, session, 'GET', '/v1/me')).status).toBe(200);
      const out = await withSession(base, session, 'POST', '/v1/console/logout');
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie()[0]).toMatch(/^aas_session=;.*Expires=Thu, 01 Jan 1970/);
      expectProblem(await withSession(base, session, 'GET', '/v1/me'), 401);
      expectProblem(await http(base, 'GET', '/v1/console/session', { headers: { cookie: session.cookie } }), 401);
      expect((await withSession(base, first, 'GET', '/v1/me')).status).toBe(200);
    });

    it("ends every session of a user when the admin resets the password", async () => {
      const another = await consoleLogin(base, first.email, PASSWORD);
      const reset = await runCli(system, ['users', 'set-password', '--email', first.email, '--generate']);
      expect(reset.sessions_ended).toBeGreaterThanOrEqual(2);
      for (const session of [first, another]) expectProblem(await withSession(base, session, 'GET', '/v1/me'), 401);
      expectProblem(await http(base, 'POST', '/v1/console/login', { body: { email: first.email, password: PASSWORD } }), 401);
      first = await consoleLogin(base, first.email, reset.password);
      expect((await withSession(base, first, 'GET', '/v1/me')).status).toBe(200);
    });

    it('refuses a short password and an unknown user in the admin command line', async () => {
      await expect(runCli(system, ['users', 'set-password', '--email', first.email], 'short')).rejects.toThrow(/12-256/);
      await expect(runCli(system, ['users', 'set-password', '--email', 'nobody@example.test'], PASSWORD)).rejects.toThrow(/not found/);
    });
  });
});
