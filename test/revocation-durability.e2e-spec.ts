import Redis from 'ioredis';
import { Pool } from 'pg';
import { AGENTS_SCHEMA } from '../apps/agents-service/src/database/agents-schema';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { TEST_REDIS_URL, observerPool } from './support/isolated-infra';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

/** Deletes every Redis key of this test's prefix, as a failover to an empty replica or an eviction would. */
async function flushPrefix(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) deleted += await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  return deleted;
}

/** Cuts the gateways' revocation subscriptions (they reconnect by themselves), so announcements in between are missed. */
async function cutRevocationFeeds(redis: Redis, prefix: string): Promise<void> {
  const clients = (await redis.client('LIST')) as string;
  const ids = clients
    .split('\n')
    .filter((line) => line.includes(` name=${prefix}:gateway:revocation-feed `))
    .map((line) => /\bid=(\d+)/.exec(line)![1]);
  expect(ids.length).toBeGreaterThan(0);
  for (const id of ids) await redis.client('KILL', 'ID', id);
}

describe('Revocation is never forgotten (Redis loses its keys)', () => {
  let system: TestSystem;
  let redis: Redis;
  let agentsDb: Pool;
  let user: User;

  beforeAll(async () => {
    system = await TestSystem.start({ gateways: 2, agentsEnv: { API_KEY_USAGE_FLUSH_MS: '1000' } });
    redis = new Redis(TEST_REDIS_URL);
    agentsDb = observerPool(system.infra.databaseUrl, AGENTS_SCHEMA.schema);
    user = await freshUser(system, 'revoker');
  });
  afterAll(async () => {
    redis.disconnect();
    await agentsDb.end();
    await system.stop();
  });

  async function newKey(): Promise<{ key_id: string; api_key: string }> {
    const created = await http(system.url(0), 'POST', '/api/public/v1/access-api-keys', { key: user.key, body: { name: 'k' } });
    expect(created.status).toBe(201);
    return created.body;
  }

  it('a key revoked through the API stays refused on every gateway after every key of the prefix is deleted', async () => {
    const key = await newKey();
    for (const gateway of [0, 1]) expect((await http(system.url(gateway), 'GET', '/v1/me', { key: key.api_key })).status).toBe(200);
    expect((await http(system.url(0), 'DELETE', `/api/public/v1/access-api-keys/${key.key_id}`, { key: user.key })).status).toBe(200);
    expect(await flushPrefix(redis, system.infra.redisPrefix)).toBeGreaterThan(0);
    for (const gateway of [0, 1]) expectProblem(await http(system.url(gateway), 'GET', '/v1/me', { key: key.api_key }), 401);
  });

  it('a cached key whose revocation was missed and whose marker is gone is verified again with agents-service', async () => {
    const key = await newKey();
    for (const gateway of [0, 1]) expect((await http(system.url(gateway), 'GET', '/v1/me', { key: key.api_key })).status).toBe(200);
    // The revocation the gateways never heard of: in the database only, no marker, no announcement.
    await agentsDb.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.key_id]);
    await flushPrefix(redis, system.infra.redisPrefix);
    await cutRevocationFeeds(redis, system.infra.redisPrefix);
    for (const gateway of [0, 1]) expectProblem(await http(system.url(gateway), 'GET', '/v1/me', { key: key.api_key }), 401);
    // Also once the subscriptions are back: a check made before the gap is not trusted again.
    await eventually('the feeds to re-subscribe', () => redis.pubsub('NUMSUB', `${system.infra.redisPrefix}:auth:revocations`), (r) => Number((r as unknown[])[1]) === 2);
    for (const gateway of [0, 1]) expectProblem(await http(system.url(gateway), 'GET', '/v1/me', { key: key.api_key }), 401);
    // The user's other key works on: only the revoked one is refused.
    expect((await http(system.url(1), 'GET', '/v1/me', { key: user.key })).status).toBe(200);
  });

  it('the key-usage hash holds only the keys used since the last flush; last use survives in PostgreSQL', async () => {
    const key = await newKey();
    const hash = `${system.infra.redisPrefix}:auth:last-used`;
    expect((await http(system.url(0), 'GET', '/v1/me', { key: key.api_key })).status).toBe(200);
    await eventually(
      'the flush to store the last use',
      async () => (await agentsDb.query('SELECT last_used_at FROM api_keys WHERE id = $1', [key.key_id])).rows[0].last_used_at,
      (at) => at !== null,
    );
    await eventually('the flush to take the key out of the hash', () => redis.hexists(hash, key.key_id), (n) => n === 0);
    const listed = await http(system.url(0), 'GET', '/api/public/v1/access-api-keys', { key: user.key });
    const entry = listed.body.keys.find((k: { key_id: string }) => k.key_id === key.key_id);
    expect(entry?.last_used_at).toBeGreaterThan(Date.now() - 60_000);
  });
});
