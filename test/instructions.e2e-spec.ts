import { createHash, randomUUID } from 'node:crypto';
import { HttpResult, expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const BOOTSTRAP_KEY = 'e2e-bootstrap-key-instructions-0123456789';

const SUMMARY_KEYS = ['agent_id', 'content', 'content_hash', 'source_id', 'storage_key', 'updated_at', 'user_email', 'user_id'];
const VERSION_KEYS = ['content', 'content_hash', 'created_at', 'id', 'source_id', 'source_type', 'storage_key'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');


describe('Instructions through the gateway', () => {
  let system: TestSystem;
  let base: string;

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: BOOTSTRAP_KEY });
    base = system.url(0);
  });
  afterAll(() => system.stop());

  const newUser = (label: string) => freshUser(system, label);

  async function createAgent(user: User): Promise<string> {
    const res = await http(base, 'POST', '/v1/agents', { key: user.key, body: {} });
    expect(res.status).toBe(201);
    return res.body.agent.agent_id;
  }

  /** A fresh user with one agent. */
  async function userWithAgent(label: string): Promise<{ user: User; agentId: string }> {
    const user = await newUser(label);
    return { user, agentId: await createAgent(user) };
  }

  const path = (agentId: string, suffix = '') => `/v1/agents/${agentId}/instructions${suffix}`;

  async function put(user: User, agentId: string, body: unknown): Promise<void> {
    const res = await http(base, 'PUT', path(agentId), { key: user.key, body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, error: null });
  }

  async function history(user: User, agentId: string, query = ''): Promise<any[]> {
    const res = await http(base, 'GET', path(agentId, `/history${query}`), { key: user.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['instruction_versions']);
    return res.body.instruction_versions;
  }

  describe('GET /v1/agents/{agent_id}/instructions', () => {
    it('answers instructions null before any PUT', async () => {
      const { user, agentId } = await userWithAgent('empty');
      const res = await http(base, 'GET', path(agentId), { key: user.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ instructions: null });
      expect(await history(user, agentId)).toEqual([]);
    });

    it('answers 404 for an unknown or malformed agent id', async () => {
      const user = await newUser('get-404');
      for (const id of [randomUUID(), 'abc']) {
        expectProblem(await http(base, 'GET', path(id), { key: user.key }), 404);
      }
    });
  });

  describe('PUT /v1/agents/{agent_id}/instructions', () => {
    it('stores the content; GET then returns exactly the summary fields', async () => {
      const { user, agentId } = await userWithAgent('put');
      const res = await http(base, 'PUT', path(agentId), { key: user.key, body: { content: 'Do X' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, error: null });

      const got = await http(base, 'GET', path(agentId), { key: user.key });
      expect(got.status).toBe(200);
      expect(Object.keys(got.body)).toEqual(['instructions']);
      const summary = got.body.instructions;
      expect(Object.keys(summary).sort()).toEqual(SUMMARY_KEYS);
      expect(summary).not.toHaveProperty('plan_steps');
      expect(summary.agent_id).toBe(agentId);
      expect(summary.content).toBe('Do X');
      expect(summary.content_hash).toBe(sha256('Do X'));
      expect(summary.source_id).toBe('');
      const me = await http(base, 'GET', '/v1/me', { key: user.key });
      expect(summary.user_id).toBe(me.body.user_id);
      expect(typeof summary.user_email).toBe('string');
      expect(summary.user_email).toContain('@');
      expect(summary.updated_at).toMatch(ISO_UTC);
      expect(Number.isNaN(Date.parse(summary.updated_at))).toBe(false);
      expect(typeof summary.storage_key).toBe('string');
      expect(summary.storage_key.length).toBeGreaterThan(0);
    });

    it('replaces the content and keeps a given source_id', async () => {
      const { user, agentId } = await userWithAgent('replace');
      await put(user, agentId, { content: 'first' });
      await put(user, agentId, { content: 'second — with ünïcødé', source_id: 'src-42' });
      const got = await http(base, 'GET', path(agentId), { key: user.key });
      expect(got.body.instructions.content).toBe('second — with ünïcødé');
      expect(got.body.instructions.content_hash).toBe(sha256('second — with ünïcødé'));
      expect(got.body.instructions.source_id).toBe('src-42');
    });

    it('returns the plan_steps that were given', async () => {
      const { user, agentId } = await userWithAgent('plan');
      const planSteps = [
        { title: 'Search', description: 'Look things up', tools: ['search'], order: 0, icon: null },
        { title: 'Report', description: 'Write it down', tools: [], order: 1, icon: 'pencil' },
      ];
      await put(user, agentId, { content: 'Plan it', plan_steps: planSteps });
      const got = await http(base, 'GET', path(agentId), { key: user.key });
      expect(Object.keys(got.body.instructions).sort()).toEqual([...SUMMARY_KEYS, 'plan_steps'].sort());
      expect(got.body.instructions.plan_steps).toEqual(planSteps);
    });

    it.each([
      ['a plan step without title', { content: 'x', plan_steps: [{ description: 'd', tools: ['search'], order: 0, icon: null }] }, 'plan_steps.0.title'],
      ['a plan step with order -1', { content: 'x', plan_steps: [{ title: 't', description: 'd', tools: ['search'], order: -1, icon: null }] }, 'plan_steps.0.order'],
      ['no content', {}, 'content'],
      ['content that is not a string', { content: 42 }, 'content'],
      ['content longer than 262144 characters', { content: 'a'.repeat(262_145) }, 'content'],
      ['an unknown field', { content: 'x', version: 3 }, 'version'],
    ])('answers 400 naming the field for %s and adds no version', async (_case, body, field) => {
      const { user, agentId } = await userWithAgent('invalid');
      const res = await http(base, 'PUT', path(agentId), { key: user.key, body });
      expectFieldProblem(res, field);
      expect((await http(base, 'GET', path(agentId), { key: user.key })).body).toEqual({ instructions: null });
      expect(await history(user, agentId)).toEqual([]);
    });

    it('accepts content of exactly 262144 characters', async () => {
      const { user, agentId } = await userWithAgent('max');
      const content = 'b'.repeat(262_144);
      await put(user, agentId, { content });
      const got = await http(base, 'GET', path(agentId), { key: user.key });
      expect(got.body.instructions.content).toBe(content);
      expect(got.body.instructions.content_hash).toBe(sha256(content));
    });

    it('answers 404 for an unknown agent', async () => {
      const user = await newUser('put-404');
      expectProblem(await http(base, 'PUT', path(randomUUID()), { key: user.key, body: { content: 'x' } }), 404);
      expectProblem(await http(base, 'PUT', path('abc'), { key: user.key, body: { content: 'x' } }), 404);
    });
  });

  describe('GET /v1/agents/{agent_id}/instructions/history', () => {
    it('adds exactly one version per PUT, newest first, with exactly the version fields', async () => {
      const { user, agentId } = await userWithAgent('history');
      await put(user, agentId, { content: 'one' });
      await put(user, agentId, { content: 'two', source_type: 'builder', source_id: 'build-7' });
      await put(user, agentId, { content: 'three' });

      const versions = await history(user, agentId);
      expect(versions).toHaveLength(3);
      expect(versions.map((v) => v.content)).toEqual(['three', 'two', 'one']);
      for (const v of versions) {
        expect(Object.keys(v).sort()).toEqual(VERSION_KEYS);
        expect(Number.isInteger(v.id)).toBe(true);
        expect(v.id).toBeGreaterThanOrEqual(0);
        expect(v.content_hash).toBe(sha256(v.content));
        expect(v.created_at).toMatch(ISO_UTC);
        expect(typeof v.storage_key).toBe('string');
        expect(v.storage_key.length).toBeGreaterThan(0);
      }
      expect(versions[0].id).toBeGreaterThan(versions[1].id);
      expect(versions[1].id).toBeGreaterThan(versions[2].id);
      expect(new Set(versions.map((v) => v.storage_key)).size).toBe(3);
      expect(versions.map((v) => v.source_type)).toEqual(['api', 'builder', 'api']);
      expect(versions.map((v) => v.source_id)).toEqual(['', 'build-7', '']);

      const current = await http(base, 'GET', path(agentId), { key: user.key });
      expect(current.body.instructions.content).toBe('three');
      expect(current.body.instructions.content_hash).toBe(versions[0].content_hash);
    });

    it('honours limit: 2 gives the two newest, 0 gives all, -1 is a 400', async () => {
      const { user, agentId } = await userWithAgent('history-limit');
      for (const content of ['v1', 'v2', 'v3']) await put(user, agentId, { content });

      expect((await history(user, agentId, '?limit=2')).map((v) => v.content)).toEqual(['v3', 'v2']);
      expect((await history(user, agentId, '?limit=0')).map((v) => v.content)).toEqual(['v3', 'v2', 'v1']);
      expect((await history(user, agentId, '?limit=1')).map((v) => v.content)).toEqual(['v3']);
      expectFieldProblem(await http(base, 'GET', path(agentId, '/history?limit=-1'), { key: user.key }), 'limit');
    });

    it('answers 404 for an unknown agent', async () => {
      const user = await newUser('history-404');
      expectProblem(await http(base, 'GET', path(randomUUID(), '/history'), { key: user.key }), 404);
      expectProblem(await http(base, 'GET', path('abc', '/history'), { key: user.key }), 404);
    });
  });

  it('answers 404 to another user for GET, PUT and history, and the PUT changes nothing', async () => {
    const { user, agentId } = await userWithAgent('owner');
    const other = await newUser('intruder');
    await put(user, agentId, { content: 'mine' });

    expectProblem(await http(base, 'GET', path(agentId), { key: other.key }), 404);
    expectProblem(await http(base, 'PUT', path(agentId), { key: other.key, body: { content: 'theirs' } }), 404);
    expectProblem(await http(base, 'GET', path(agentId, '/history'), { key: other.key }), 404);

    const got = await http(base, 'GET', path(agentId), { key: user.key });
    expect(got.body.instructions.content).toBe('mine');
    expect(got.body.instructions.user_id).toBe(user.userId);
    expect((await history(user, agentId)).map((v) => v.content)).toEqual(['mine']);
  });

  it('answers 404 for instructions of a deleted agent', async () => {
    const { user, agentId } = await userWithAgent('deleted');
    await put(user, agentId, { content: 'gone soon' });
    expect((await http(base, 'DELETE', `/v1/agents/${agentId}`, { key: user.key })).status).toBe(204);
    expectProblem(await http(base, 'GET', path(agentId), { key: user.key }), 404);
    expectProblem(await http(base, 'GET', path(agentId, '/history'), { key: user.key }), 404);
  });
});


/** A 400 Problem naming `field` in its detail and in its `errors` list (request validation). */
function expectFieldProblem(res: HttpResult, field: string): void {
  expectProblem(res, 400);
  expect(res.body.detail).toContain(field);
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}
