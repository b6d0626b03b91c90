import { hashToken } from '@aas/contracts';
import { ConflictError, ResourceNotFoundError, UnauthorizedError } from '@aas/problem-details';
import { FakeApiKeyStore } from '../api-keys/api-key.store.fake';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { KeyRevocationRegistry } from '../api-keys/key-revocation.registry';
import { FakeKeyRevocationRegistry } from '../api-keys/key-revocation.registry.fake';
import { AccessAnnouncer } from '../common/access-announcer';
import { FakeAccessAnnouncer } from '../common/access-announcer.fake';
import { fakeAgentsConfig } from '../config/agents-config.fake';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { FakeUserQuotaStore } from '../quotas/user-quota.store.fake';
import { UserQuotas } from '../quotas/user-quotas';
import { FakeConsoleSessionStore } from './console-session.store.fake';
import { ConsoleSessionsService, SESSIONS_PER_USER, SETUP_TOKEN_TTL_MS } from './console-sessions.service';

const TTL_MS = 60 * 60_000;
const PASSWORD_HASH = 'scrypt$hash-of-the-password';

describe(ConsoleSessionsService.name, () => {
  function setup(idleMs = TTL_MS) {
    const db = new InMemoryDatabase();
    const announcer = new FakeAccessAnnouncer();
    const config = fakeAgentsConfig({ CONSOLE_SESSION_TTL_MS: TTL_MS, CONSOLE_SESSION_IDLE_TIMEOUT_MS: idleMs });
    const registry = new FakeKeyRevocationRegistry();
    const sessionStore = new FakeConsoleSessionStore(db);
    const apiKeys = new ApiKeysService(
      new FakeApiKeyStore(db),
      db.transactions,
      registry as unknown as KeyRevocationRegistry,
      new UserQuotas(config, new FakeUserQuotaStore(db)),
    );
    const sut = new ConsoleSessionsService(sessionStore, db.transactions, config, announcer as unknown as AccessAnnouncer, apiKeys);
    return { sut, db, announcer, apiKeys, registry };
  }

  /** A user who can sign in, and a sign-in of it with token `token`. */
  function signedIn(env: ReturnType<typeof setup>, token = 'session-1') {
    const user = env.db.tables.users.find((u) => u.passwordHash === PASSWORD_HASH) ?? env.db.addUser('ada@example.test', { passwordHash: PASSWORD_HASH });
    return env.sut.createSession(user.id, PASSWORD_HASH, hashToken(token));
  }

  describe('first-run setup', () => {
    const setupWith = (token: string, email = 'Ada@Example.test ') => ({
      setup_token_hash: hashToken(token),
      email,
      password_hash: PASSWORD_HASH,
      session_token_hash: hashToken('first-session'),
    });

    it('spends the setup token for the first user, with a password and a session', async () => {
      const { sut } = setup();
      expect(await sut.setupRequired()).toBe(true);
      const { setup_token } = await sut.issueSetupToken();
      const session = await sut.setup(setupWith(setup_token));
      expect(session).toMatchObject({ email: 'ada@example.test' });
      expect(await sut.verify(hashToken('first-session'))).toEqual(session);
      expect(await sut.setupRequired()).toBe(false);
      expect(await sut.loginCredentials(' ADA@example.test')).toEqual({ user_id: session.user_id, password_hash: PASSWORD_HASH });
    });

    it('closes once a user can sign in: no new token (409), no second setup (404)', async () => {
      const { sut } = setup();
      const { setup_token } = await sut.issueSetupToken();
      await sut.setup(setupWith(setup_token));
      await expect(sut.issueSetupToken()).rejects.toBeInstanceOf(ConflictError);
      await expect(sut.setup(setupWith(setup_token, 'eve@example.test'))).rejects.toBeInstanceOf(ResourceNotFoundError);
    });

    it('refuses a wrong, replaced or expired setup token with a 401', async () => {
      const { sut, db } = setup();
      const replaced = (await sut.issueSetupToken()).setup_token;
      const current = (await sut.issueSetupToken()).setup_token;
      await expect(sut.setup(setupWith('made-up'))).rejects.toBeInstanceOf(UnauthorizedError);
      await expect(sut.setup(setupWith(replaced))).rejects.toBeInstanceOf(UnauthorizedError);
      db.advanceClock(SETUP_TOKEN_TTL_MS + 1);
      await expect(sut.setup(setupWith(current))).rejects.toBeInstanceOf(UnauthorizedError);
      expect(db.tables.users).toEqual([]);
    });

    it('checks a setup token without spending it: 401 for a bad one, 404 once setup is over', async () => {
      const { sut } = setup();
      const { setup_token } = await sut.issueSetupToken();
      await expect(sut.checkSetupToken(hashToken('made-up'))).rejects.toBeInstanceOf(UnauthorizedError);
      await expect(sut.checkSetupToken(hashToken(setup_token))).resolves.toEqual({ valid: true });
      await sut.setup(setupWith(setup_token));
      await expect(sut.checkSetupToken(hashToken(setup_token))).rejects.toBeInstanceOf(ResourceNotFoundError);
    });

    it('refuses an email a user has with a 409, and the token stays usable with another', async () => {
      const { sut, db } = setup();
      db.addUser('ada@example.test');
      const { setup_token } = await sut.issueSetupToken();
      await expect(sut.setup(setupWith(setup_token))).rejects.toBeInstanceOf(ConflictError);
      await expect(sut.setup(setupWith(setup_token, 'eve@example.test'))).resolves.toMatchObject({ email: 'eve@example.test' });
    });
  });

  describe('sessions', () => {
    it('lasts CONSOLE_SESSION_TTL_MS from sign-in, and is refused once expired', async () => {
      const env = setup();
      const before = env.db.now();
      const session = await signedIn(env);
      expect(Date.parse(session.expires_at)).toBeGreaterThanOrEqual(before + TTL_MS);
      expect(Date.parse(session.expires_at)).toBeLessThanOrEqual(env.db.now() + TTL_MS);
      env.db.advanceClock(TTL_MS - 1000);
      expect(await env.sut.verify(hashToken('session-1'))).toEqual(session);
      env.db.advanceClock(1000);
      expect(await env.sut.verify(hashToken('session-1'))).toBeNull();
    });

    it('ends a session unused for CONSOLE_SESSION_IDLE_TIMEOUT_MS, and each use moves that end', async () => {
      const idleMs = 30 * 60_000;
      const env = setup(idleMs);
      await signedIn(env);
      await signedIn(env, 'session-2');
      env.db.advanceClock(idleMs - 1000);
      expect(await env.sut.verify(hashToken('session-1'))).not.toBeNull();
      env.db.advanceClock(idleMs - 1000);
      expect(await env.sut.verify(hashToken('session-1'))).not.toBeNull();
      expect(await env.sut.verify(hashToken('session-2'))).toBeNull();
      env.db.advanceClock(idleMs);
      expect(await env.sut.verify(hashToken('session-1'))).toBeNull();
      await env.sut.purgeExpired();
      expect(env.db.tables.sessions).toEqual([]);
    });

    it('replaces the password hash with a rehash of the same password when signing in with one', async () => {
      const env = setup();
      const user = env.db.addUser('ada@example.test', { passwordHash: PASSWORD_HASH });
      await env.sut.createSession(user.id, PASSWORD_HASH, hashToken('s'), '$argon2id$rehashed');
      expect(user.passwordHash).toBe('$argon2id$rehashed');
      expect(user.passwordChangedAt).toBeUndefined();
      await env.sut.createSession(user.id, '$argon2id$rehashed', hashToken('s2'));
      expect(user.passwordHash).toBe('$argon2id$rehashed');
    });

    it('refuses a sign-in whose password changed since the gateway checked it', async () => {
      const env = setup();
      const user = env.db.addUser('ada@example.test', { passwordHash: 'scrypt$new' });
      await expect(env.sut.createSession(user.id, PASSWORD_HASH, hashToken('s'))).rejects.toBeInstanceOf(UnauthorizedError);
      expect(env.db.tables.sessions).toEqual([]);
    });

    it(`keeps ${SESSIONS_PER_USER} sessions per user: signing in again ends the oldest, and the gateways are told`, async () => {
      const env = setup();
      const sessions = [];
      for (let i = 0; i <= SESSIONS_PER_USER; i++) sessions.push(await signedIn(env, `session-${i}`));
      expect(await env.sut.verify(hashToken('session-0'))).toBeNull();
      expect(await env.sut.verify(hashToken(`session-${SESSIONS_PER_USER}`))).not.toBeNull();
      expect(env.announcer.endedSessions).toEqual([sessions[0].session_id]);
    });

    it('logout ends the session and tells the gateways; a second logout ends nothing', async () => {
      const env = setup();
      const session = await signedIn(env);
      await signedIn(env, 'session-2');
      expect(await env.sut.end(hashToken('session-1'))).toEqual({ ended: true });
      expect(await env.sut.verify(hashToken('session-1'))).toBeNull();
      expect(await env.sut.verify(hashToken('session-2'))).not.toBeNull();
      expect(await env.sut.end(hashToken('session-1'))).toEqual({ ended: false });
      expect(env.announcer.endedSessions).toEqual([session.session_id]);
    });

    it("a password reset ends every session of the user; an unknown email is a 404", async () => {
      const env = setup();
      const ended = [await signedIn(env), await signedIn(env, 'session-2')].map((s) => s.session_id);
      const result = await env.sut.setPassword(' ADA@example.test', 'a new password');
      expect(result).toEqual({ user_id: env.db.tables.users[0].id, sessions_ended: 2, session_made_keys: [], session_made_keys_revoked: false });
      expect(env.announcer.endedSessions).toEqual(ended);
      expect(env.db.tables.users[0].passwordHash).not.toBe(PASSWORD_HASH);
      await expect(env.sut.setPassword('nobody@example.test', 'a new password')).rejects.toBeInstanceOf(ResourceNotFoundError);
    });

    it('lists the keys console sessions made since the last reset, and revokes them only when asked', async () => {
      const env = setup();
      const session = await signedIn(env);
      const user = env.db.tables.users[0];
      const byCli = await env.apiKeys.create(user.id, 'cli');
      // Keys of one instant are listed by id: a later one keeps the expected order.
      env.db.advanceClock(1);
      const bySession = await env.apiKeys.create(user.id, 'made in the console', session.session_id);
      const listed = await env.sut.setPassword(user.email, 'a new password');
      expect(listed.session_made_keys).toEqual([
        { key_id: bySession.key_id, name: 'made in the console', display_prefix: bySession.display_prefix, created_at: expect.any(String) },
      ]);
      expect(listed.session_made_keys_revoked).toBe(false);
      expect((await env.apiKeys.list(user.id)).map((k) => k.key_id)).toEqual([byCli.key_id, bySession.key_id]);

      // The key listed at the last reset is not listed again; one made since is, and is revoked with the flag.
      env.db.advanceClock(1000);
      const later = await signedIn(env, 'session-2');
      const madeLater = await env.apiKeys.create(user.id, 'later', later.session_id);
      const revoked = await env.sut.setPassword(user.email, 'another password', { revokeSessionKeys: true });
      expect(revoked.session_made_keys.map((k) => k.key_id)).toEqual([madeLater.key_id]);
      expect(revoked.session_made_keys_revoked).toBe(true);
      expect(env.registry.markers).toEqual(new Set([madeLater.key_id]));
      expect((await env.apiKeys.list(user.id)).map((k) => k.key_id)).toEqual([byCli.key_id, bySession.key_id]);
    });

    it('makes no key for a session that ended before the key was stored', async () => {
      const env = setup();
      const session = await signedIn(env);
      await env.sut.end(hashToken('session-1'));
      await expect(env.apiKeys.create(session.user_id, 'too late', session.session_id)).rejects.toBeInstanceOf(UnauthorizedError);
      expect(await env.apiKeys.list(session.user_id)).toEqual([]);
    });

    it('purges expired sessions and setup tokens only', async () => {
      const env = setup();
      await env.sut.issueSetupToken();
      await signedIn(env);
      env.db.advanceClock(TTL_MS);
      await signedIn(env, 'session-2');
      await env.sut.purgeExpired();
      expect(env.db.tables.sessions.map((s) => s.tokenHash)).toEqual([hashToken('session-2')]);
      expect(env.db.tables.setupTokens).toHaveLength(1);
      env.db.advanceClock(SETUP_TOKEN_TTL_MS);
      await env.sut.purgeExpired();
      expect(env.db.tables.setupTokens).toEqual([]);
    });
  });
});
