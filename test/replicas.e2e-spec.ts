import { Client } from 'pg';
import { http } from './support/http';
import { TestSystem } from './support/test-system';

const BOOTSTRAP_KEY = 'replicas-bootstrap-key-0123456789';

describe('Two agents-service replicas behind the gateway', () => {
  let system: TestSystem;

  beforeAll(async () => {
    // 100 keys more than the bootstrap key: past QUOTA_API_KEYS_PER_USER's default of 100 (test/quotas.e2e-spec.ts tests it).
    system = await TestSystem.start({ bootstrapApiKey: BOOTSTRAP_KEY, agentsReplicas: 2, agentsEnv: { QUOTA_API_KEYS_PER_USER: '200' } });
  });
  afterAll(() => system.stop());

  it('makes exactly 100 keys from 100 concurrent creations', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        http(system.url(), 'POST', '/api/public/v1/access-api-keys', { key: BOOTSTRAP_KEY, body: { name: `k${i}` } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(100).fill(201));
    expect(new Set(results.map((r) => r.body.key_id)).size).toBe(100);

    const pg = new Client({ connectionString: system.infra.databaseUrl });
    await pg.connect();
    const { rows } = await pg.query(`SELECT count(*)::int AS n FROM agents.api_keys WHERE name LIKE 'k%'`);
    await pg.end();
    expect(rows[0].n).toBe(100);
  });
});
