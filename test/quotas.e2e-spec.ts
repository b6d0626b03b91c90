import { Pool } from 'pg';
import { HttpResult, expectProblem, http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const API_KEYS = 3;
const AGENTS = 4;
const WORKSPACES = 3;
const INSTRUCTIONS_BYTES = 1000;
const VERSIONS_KEPT = 3;
const WEBHOOKS = 2;
const CONCURRENT = 8;

/** Quotas (docs/quotas-and-limits.md), each against a second user who must not be affected. */
describe('Quotas', () => {
  let system: TestSystem;
  let base: string;
  let agentsDb: Pool;

  beforeAll(async () => {
    system = await TestSystem.start({
      agentsEnv: {
        QUOTA_API_KEYS_PER_USER: String(API_KEYS),
        QUOTA_AGENTS_PER_USER: String(AGENTS),
        QUOTA_WORKSPACES_PER_USER: String(WORKSPACES),
        QUOTA_INSTRUCTIONS_BYTES: String(INSTRUCTIONS_BYTES),
        QUOTA_INSTRUCTION_VERSIONS_KEPT: String(VERSIONS_KEPT),
      },
      webhooksEnv: { QUOTA_WEBHOOKS_PER_AGENT: String(WEBHOOKS), WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    base = system.url();
    agentsDb = observerPool(system.infra.databaseUrl, 'agents');
  });
  afterAll(async () => {
    await agentsDb?.end();
    await system?.stop();
  });

  const call = (user: User, method: string, path: string, body?: unknown) => http(base, method, path, { key: user.key, body });
  const createKey = (user: User, name = 'k') => call(user, 'POST', '/api/public/v1/access-api-keys', { name });
  const createAgent = (user: User) => call(user, 'POST', '/v1/agents', {});
  const createWorkspace = (user: User, name = 'w') => call(user, 'POST', '/v1/workspaces', { name });
  const createWebhook = (user: User, agentId: string) =>
    call(user, 'POST', `/v1/agents/${agentId}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: ['run.completed'] });
  const putInstructions = (user: User, agentId: string, body: object) => call(user, 'PUT', `/v1/agents/${agentId}/instructions`, body);

  async function newAgent(user: User): Promise<string> {
    const res = await createAgent(user);
    expect(res.status).toBe(201);
    return res.body.agent.agent_id;
  }

  function expectQuotaExceeded(res: HttpResult, quota: string, limit: number): void {
    expectProblem(res, 422);
    expect(res.body).toMatchObject({ type: 'urn:aas:problem:quota-exceeded', title: 'Unprocessable Entity', quota, limit });
    expect(res.body.detail).toContain(quota);
    expect(res.body.detail).toContain(String(limit));
  }

  const statuses = (results: HttpResult[]) => results.map((r) => r.status).sort();

  describe('active API keys per user', () => {
    it('refuses a key past the quota, leaves another user free to create keys, and counts only active keys', async () => {
      const a = await freshUser(system, 'keys-a');
      const b = await freshUser(system, 'keys-b');
      for (let i = 1; i < API_KEYS; i++) expect((await createKey(a)).status).toBe(201);
      const refused = await createKey(a);
      expectQuotaExceeded(refused, 'api_keys_per_user', API_KEYS);

      expect((await createKey(b)).status).toBe(201);

      const keys = (await call(a, 'GET', '/api/public/v1/access-api-keys')).body.keys;
      expect(keys).toHaveLength(API_KEYS);
      const revoked = keys.find((k: { name: string }) => k.name === 'k');
      expect((await call(a, 'DELETE', `/api/public/v1/access-api-keys/${revoked.key_id}`)).status).toBe(200);
      expect((await createKey(a)).status).toBe(201);
      expectQuotaExceeded(await createKey(a), 'api_keys_per_user', API_KEYS);
    });

    it('lets exactly one of several concurrent creates take the last slot', async () => {
      const a = await freshUser(system, 'keys-race');
      for (let i = 2; i < API_KEYS; i++) expect((await createKey(a)).status).toBe(201);
      const results = await Promise.all(Array.from({ length: CONCURRENT }, () => createKey(a)));
      expect(statuses(results)).toEqual([201, ...Array(CONCURRENT - 1).fill(422)]);
      expect((await call(a, 'GET', '/api/public/v1/access-api-keys')).body.keys).toHaveLength(API_KEYS);
    });
  });

  describe('agents per user', () => {
    it('holds under concurrent creates, and another user still creates agents', async () => {
      const a = await freshUser(system, 'agents-a');
      const b = await freshUser(system, 'agents-b');
      const results = await Promise.all(Array.from({ length: CONCURRENT }, () => createAgent(a)));
      expect(statuses(results)).toEqual([...Array(AGENTS).fill(201), ...Array(CONCURRENT - AGENTS).fill(422)]);
      expectQuotaExceeded(results.find((r) => r.status === 422)!, 'agents_per_user', AGENTS);
      expect((await call(a, 'GET', '/v1/agents')).body.agents).toHaveLength(AGENTS);
      expect((await createAgent(b)).status).toBe(201);

      const [first] = (await call(a, 'GET', '/v1/agents')).body.agents;
      expect((await call(a, 'DELETE', `/v1/agents/${first.agent_id}`)).status).toBe(204);
      expect((await createAgent(a)).status).toBe(201);
    });
  });

  describe('workspaces per user', () => {
    it('counts the default workspace, holds under concurrent creates, and leaves another user alone', async () => {
      const a = await freshUser(system, 'workspaces-a');
      const b = await freshUser(system, 'workspaces-b');
      const results = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => createWorkspace(a, `w${i}`)));
      expect(statuses(results)).toEqual([...Array(WORKSPACES - 1).fill(201), ...Array(CONCURRENT - WORKSPACES + 1).fill(422)]);
      expectQuotaExceeded(results.find((r) => r.status === 422)!, 'workspaces_per_user', WORKSPACES);
      const workspaces = (await call(a, 'GET', '/v1/workspaces')).body.workspaces;
      expect(workspaces).toHaveLength(WORKSPACES);
      expect(new Set(workspaces.map((w: { position: number }) => w.position)).size).toBe(WORKSPACES);
      expect((await createWorkspace(b)).status).toBe(201);
    });
  });

  describe('webhooks per agent', () => {
    it("refuses a webhook past the agent's quota; the user's other agent and another user's agent are not affected", async () => {
      const a = await freshUser(system, 'webhooks-a');
      const b = await freshUser(system, 'webhooks-b');
      const [full, other] = [await newAgent(a), await newAgent(a)];
      const results = await Promise.all(Array.from({ length: CONCURRENT }, () => createWebhook(a, full)));
      expect(statuses(results)).toEqual([...Array(WEBHOOKS).fill(201), ...Array(CONCURRENT - WEBHOOKS).fill(422)]);
      expectQuotaExceeded(results.find((r) => r.status === 422)!, 'webhooks_per_agent', WEBHOOKS);
      expect((await call(a, 'GET', `/v1/agents/${full}/webhooks`)).body.webhooks).toHaveLength(WEBHOOKS);

      expect((await createWebhook(a, other)).status).toBe(201);
      expect((await createWebhook(b, await newAgent(b))).status).toBe(201);

      // A disabled webhook still counts; deleting one frees its slot.
      const [first] = (await call(a, 'GET', `/v1/agents/${full}/webhooks`)).body.webhooks;
      expect((await call(a, 'PATCH', `/v1/agents/${full}/webhooks/${first.webhook_id}`, { status: 'disabled' })).status).toBe(200);
      expectQuotaExceeded(await createWebhook(a, full), 'webhooks_per_agent', WEBHOOKS);
      expect((await call(a, 'DELETE', `/v1/agents/${full}/webhooks/${first.webhook_id}`)).status).toBe(204);
      expect((await createWebhook(a, full)).status).toBe(201);
    });
  });

  describe('instruction size', () => {
    it('takes a version of exactly the quota and refuses one byte more, counting UTF-8 bytes and plan_steps', async () => {
      const a = await freshUser(system, 'size-a');
      const agentId = await newAgent(a);
      expect((await putInstructions(a, agentId, { content: 'a'.repeat(INSTRUCTIONS_BYTES) })).status).toBe(200);

      expectQuotaExceeded(await putInstructions(a, agentId, { content: 'b'.repeat(INSTRUCTIONS_BYTES + 1) }), 'instructions_bytes', INSTRUCTIONS_BYTES);
      // 334 characters, 1,002 bytes.
      expectQuotaExceeded(await putInstructions(a, agentId, { content: '€'.repeat(334) }), 'instructions_bytes', INSTRUCTIONS_BYTES);
      const steps = [{ title: 't', description: 'd'.repeat(200), tools: [], order: 0 }];
      expectQuotaExceeded(
        await putInstructions(a, agentId, { content: 'c'.repeat(INSTRUCTIONS_BYTES - 100), plan_steps: steps }),
        'instructions_bytes',
        INSTRUCTIONS_BYTES,
      );

      const current = (await call(a, 'GET', `/v1/agents/${agentId}/instructions`)).body.instructions;
      expect(current.content).toBe('a'.repeat(INSTRUCTIONS_BYTES));
      expect((await call(a, 'GET', `/v1/agents/${agentId}/instructions/history`)).body.instruction_versions).toHaveLength(1);
    });
  });

  describe('instruction versions kept per agent', () => {
    it('deletes the versions beyond the kept count as new ones are written; the history default returns every kept one', async () => {
      const a = await freshUser(system, 'versions-a');
      const b = await freshUser(system, 'versions-b');
      const [agentId, otherAgent] = [await newAgent(a), await newAgent(a)];
      const bAgent = await newAgent(b);
      for (let i = 1; i <= 2; i++) expect((await putInstructions(b, bAgent, { content: `b${i}` })).status).toBe(200);
      for (let i = 1; i <= 2; i++) expect((await putInstructions(a, otherAgent, { content: `o${i}` })).status).toBe(200);
      for (let i = 1; i <= VERSIONS_KEPT + 3; i++) expect((await putInstructions(a, agentId, { content: `v${i}` })).status).toBe(200);

      const history = async (user: User, id: string, query = '') =>
        (await call(user, 'GET', `/v1/agents/${id}/instructions/history${query}`)).body.instruction_versions.map((v: { content: string }) => v.content);
      expect(await history(a, agentId)).toEqual(['v6', 'v5', 'v4']);
      expect(await history(a, agentId, '?limit=0')).toEqual(['v6', 'v5', 'v4']);
      expect(await history(a, agentId, '?limit=2')).toEqual(['v6', 'v5']);
      expect((await call(a, 'GET', `/v1/agents/${agentId}/instructions`)).body.instructions.content).toBe('v6');

      // Deleted, not hidden: the rows are gone.
      const rows = await agentsDb.query('SELECT count(*)::int AS n FROM instruction_versions WHERE agent_id = $1', [agentId]);
      expect(rows.rows[0].n).toBe(VERSIONS_KEPT);
      expect(await history(a, otherAgent)).toEqual(['o2', 'o1']);
      expect(await history(b, bAgent)).toEqual(['b2', 'b1']);
    });

    it('never shows more than the kept count of versions written before the quota, and prunes them at the next write', async () => {
      const a = await freshUser(system, 'versions-older');
      const agentId = await newAgent(a);
      await agentsDb.query(
        `INSERT INTO instruction_versions (agent_id, content, source_type, source_id, content_hash, created_at)
         SELECT $1, 'old' || g, 'api', '', repeat('0', 64), now() FROM generate_series(1, 6) g`,
        [agentId],
      );
      const contents = async () =>
        (await call(a, 'GET', `/v1/agents/${agentId}/instructions/history?limit=100`)).body.instruction_versions.map((v: { content: string }) => v.content);
      expect(await contents()).toEqual(['old6', 'old5', 'old4']);

      expect((await putInstructions(a, agentId, { content: 'new' })).status).toBe(200);
      expect(await contents()).toEqual(['new', 'old6', 'old5']);
      const { rows } = await agentsDb.query('SELECT count(*)::int AS n FROM instruction_versions WHERE agent_id = $1', [agentId]);
      expect(rows[0].n).toBe(VERSIONS_KEPT);
    });

    it('keeps exactly the newest versions when writes race', async () => {
      const a = await freshUser(system, 'versions-race');
      const agentId = await newAgent(a);
      const results = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => putInstructions(a, agentId, { content: `r${i}` })));
      expect(results.every((r) => r.status === 200)).toBe(true);
      const versions = (await call(a, 'GET', `/v1/agents/${agentId}/instructions/history`)).body.instruction_versions;
      expect(versions).toHaveLength(VERSIONS_KEPT);
      const current = (await call(a, 'GET', `/v1/agents/${agentId}/instructions`)).body.instructions;
      expect(versions[0].content).toBe(current.content);
      const { rows } = await agentsDb.query('SELECT max(id)::int AS newest FROM instruction_versions WHERE agent_id = $1', [agentId]);
      expect(versions[0].id).toBe(rows[0].newest);
    });
  });
});
