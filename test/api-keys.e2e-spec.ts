import Redis from 'ioredis';
import { ApiKeysService } from '../apps/agents-service/src/api-keys/api-keys.service';
import { UsersService } from '../apps/agents-service/src/users/users.service';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { TestSystem } from './support/test-system';

const BOOTSTRAP_KEY = 'e2e-bootstrap-key-0123456789';

describe('Identity and API keys through the gateway', () => {
  let system: TestSystem;
  let base: string;

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: BOOTSTRAP_KEY, gateways: 2, gatewayEnv: { BODY_LIMIT_BYTES: '4096' } });
    base = system.url(0);
  });
  afterAll(() => system.stop());

  describe('GET /v1/me', () => {
    it('answers the bootstrap user with exactly the spec fields', async () => {
      const res = await http(base, 'GET', '/v1/me', { key: BOOTSTRAP_KEY });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['needs_onboarding', 'user_id']);
      expect(res.body.user_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.body.needs_onboarding).toBe(true);
    });

    it('is a 401 Problem Details without a key, with a Bearer token, or with a wrong key', async () => {
      expectProblem(await http(base, 'GET', '/v1/me'), 401);
      const bearer = await http(base, 'GET', '/v1/me', { headers: { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.x' } });
      expectProblem(bearer, 401);
      expect(bearer.body.detail).toContain('x-api-key');
      expectProblem(await http(base, 'GET', '/v1/me', { key: 'aas_thisIsNotAValidKeyChecksum000000000' }), 401);
      expectProblem(await http(base, 'GET', '/v1/me', { key: 'some-random-secret-value' }), 401);
    });

    it('echoes a sane x-request-id and makes one otherwise', async () => {
      const kept = await http(base, 'GET', '/v1/me', { key: BOOTSTRAP_KEY, headers: { 'x-request-id': 'trace-abc.123' } });
      expect(kept.headers.get('x-request-id')).toBe('trace-abc.123');
      const replaced = await http(base, 'GET', '/v1/me', { key: BOOTSTRAP_KEY, headers: { 'x-request-id': 'bad id with spaces' } });
      expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('POST /api/public/v1/access-api-keys', () => {
    it('creates a key shown once, which then authenticates as the same user', async () => {
      const created = await http(base, 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, body: { name: 'ci' } });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body).sort()).toEqual(['api_key', 'created_at', 'display_prefix', 'key_id', 'name']);
      expect(created.body.name).toBe('ci');
      expect(created.body.api_key.startsWith(created.body.display_prefix)).toBe(true);
      expect(created.body.display_prefix.length).toBeLessThan(created.body.api_key.length / 2);
      expect(Number.isInteger(created.body.created_at)).toBe(true);
      expect(Math.abs(created.body.created_at - Date.now())).toBeLessThan(60_000);

      const me = await http(base, 'GET', '/v1/me', { key: BOOTSTRAP_KEY });
      const meWithNew = await http(base, 'GET', '/v1/me', { key: created.body.api_key });
      expect(meWithNew.status).toBe(200);
      expect(meWithNew.body.user_id).toBe(me.body.user_id);
    });

    it.each([
      ['an empty name', { name: '' }, 'name'],
      ['a name of 129 characters', { name: 'x'.repeat(129) }, 'name'],
      ['a name that is not a string', { name: 42 }, 'name'],
      ['no name', {}, 'name'],
      ['an unknown field', { name: 'ok', admin: true }, 'admin'],
    ])('answers 400 naming the field for %s', async (_case, body, field) => {
      const res = await http(base, 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, body });
      expectProblem(res, 400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
      expect(res.body.detail).toContain(field);
    });

    it('accepts a name of exactly 128 characters', async () => {
      const res = await http(base, 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, body: { name: 'n'.repeat(128) } });
      expect(res.status).toBe(201);
    });

    it('answers malformed JSON with 400 and an oversize body with 413', async () => {
      expectProblem(await http(base, 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, rawBody: '{"name":' }), 400);
      const huge = await http(base, 'POST', '/api/public/v1/access-api-keys', {
        key: BOOTSTRAP_KEY,
        body: { name: 'x'.repeat(8000) },
      });
      expectProblem(huge, 413);
    });
  });

  describe('GET /api/public/v1/access-api-keys', () => {
    it('lists prefixes only, with last use recorded without showing the key', async () => {
      const created = await http(base, 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, body: { name: 'listed' } });
      const unused = await http(base, 'GET', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY });
      const before = unused.body.keys.find((k: { key_id: string }) => k.key_id === created.body.key_id);
      expect(before.last_used_at).toBeNull();

      await http(base, 'GET', '/v1/me', { key: created.body.api_key });
      const res = await http(base, 'GET', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY });
      expect(res.status).toBe(200);
      const entry = res.body.keys.find((k: { key_id: string }) => k.key_id === created.body.key_id);
      expect(Object.keys(entry).sort()).toEqual(['created_at', 'display_prefix', 'key_id', 'last_used_at', 'name']);
      expect(entry.display_prefix).toBe(created.body.display_prefix);
      expect(entry.last_used_at).toBeGreaterThanOrEqual(entry.created_at);
      expect(JSON.stringify(res.body)).not.toContain(created.body.api_key);
    });
  });

  describe('DELETE /api/public/v1/access-api-keys/{key_id}', () => {
    it('revokes a key so that its very next request fails on every gateway', async () => {
      const created = await http(base, 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, body: { name: 'doomed' } });
      const key = created.body.api_key;
      // Warm both gateways' caches with the key.
      expect((await http(system.url(0), 'GET', '/v1/me', { key })).status).toBe(200);
      expect((await http(system.url(1), 'GET', '/v1/me', { key })).status).toBe(200);

      const revoked = await http(base, 'DELETE', `/api/public/v1/access-api-keys/${created.body.key_id}`, { key: BOOTSTRAP_KEY });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ revoked: true });

      expectProblem(await http(system.url(1), 'GET', '/v1/me', { key }), 401);
      expectProblem(await http(system.url(0), 'GET', '/v1/me', { key }), 401);
      const list = await http(base, 'GET', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY });
      expect(list.body.keys.map((k: { key_id: string }) => k.key_id)).not.toContain(created.body.key_id);
    });

    it('trusts a cached key between announcements, and verifies it again with agents-service once announcements may have been missed', async () => {
      const created = await http(base, 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, body: { name: 'unannounced' } });
      const key = created.body.api_key;
      const status = async (gateway: number) => (await http(system.url(gateway), 'GET', '/v1/me', { key })).status;
      expect([await status(0), await status(1)]).toEqual([200, 200]);

      const redis = new Redis(system.infra.redisUrl);
      const agentsDb = observerPool(system.infra.databaseUrl, 'agents');
      try {
        // A revocation nobody announced (no marker either): the gateways, listening, have no reason to look.
        await agentsDb.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [created.body.key_id]);
        expect([await status(0), await status(1)]).toEqual([200, 200]);

        // Losing the subscription means an announcement may have been missed: agents-service is asked again.
        const feedName = `${system.infra.redisPrefix}:gateway:revocation-feed`;
        const feeds = String(await redis.client('LIST'))
          .split('\n')
          .filter((line) => line.includes(` name=${feedName} `))
          .map((line) => /\bid=(\d+)/.exec(line)![1]);
        expect(feeds).toHaveLength(2);
        for (const id of feeds) await redis.client('KILL', 'ID', id);
        await eventually('both gateways to refuse the key', async () => [await status(0), await status(1)], (s) => s.every((c) => c === 401), 2000);
      } finally {
        redis.disconnect();
        await agentsDb.end();
      }
    });

    it('answers 404 for a revoked, unknown, malformed or foreign key id', async () => {
      const created = await http(base, 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, body: { name: 'once' } });
      await http(base, 'DELETE', `/api/public/v1/access-api-keys/${created.body.key_id}`, { key: BOOTSTRAP_KEY });
      expectProblem(await http(base, 'DELETE', `/api/public/v1/access-api-keys/${created.body.key_id}`, { key: BOOTSTRAP_KEY }), 404);
      expectProblem(await http(base, 'DELETE', '/api/public/v1/access-api-keys/00000000-0000-4000-8000-000000000000', { key: BOOTSTRAP_KEY }), 404);
      expectProblem(await http(base, 'DELETE', '/api/public/v1/access-api-keys/not-a-uuid', { key: BOOTSTRAP_KEY }), 404);

      const other = await otherUsersKey(system, 'foreign@example.test');
      expectProblem(await http(base, 'DELETE', `/api/public/v1/access-api-keys/${other.key_id}`, { key: BOOTSTRAP_KEY }), 404);
      expect((await http(base, 'GET', '/v1/me', { key: other.api_key })).status).toBe(200);
    });
  });

  it('shows a second user none of the first user’s keys', async () => {
    const other = await otherUsersKey(system, 'second@example.test');
    const mine = await http(base, 'GET', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY });
    const theirs = await http(base, 'GET', '/api/public/v1/access-api-keys', { key: other.api_key });
    expect(theirs.body.keys.map((k: { key_id: string }) => k.key_id)).toEqual([other.key_id]);
    const myIds = new Set(mine.body.keys.map((k: { key_id: string }) => k.key_id));
    expect(myIds.has(other.key_id)).toBe(false);
  });

  it('answers an unknown route with a 404 Problem Details', async () => {
    expectProblem(await http(base, 'GET', '/v1/nothing-here', { key: BOOTSTRAP_KEY }), 404);
  });
});

async function otherUsersKey(system: TestSystem, email: string) {
  const app = system.agents[0];
  const user = await app.get(UsersService).createUser(email);
  return app.get(ApiKeysService).create(user.id, 'theirs');
}
