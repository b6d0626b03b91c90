import { randomUUID } from 'node:crypto';
import { HttpResult, expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const BOOTSTRAP_KEY = 'e2e-bootstrap-key-workspaces-0123456789';

/** The spec's fields, and run_retention_days (an Addition: docs/contract.md, docs/retention.md). */
const WORKSPACE_KEYS = ['agent_count', 'created_at', 'icon_config', 'name', 'position', 'run_retention_days', 'updated_at', 'workspace_id'];
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;


describe('Workspaces through the gateway', () => {
  let system: TestSystem;
  let base: string;

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: BOOTSTRAP_KEY });
    base = system.url(0);
  });
  afterAll(() => system.stop());

  const newUser = (label: string) => freshUser(system, label);

  async function list(user: User): Promise<any[]> {
    const res = await http(base, 'GET', '/v1/workspaces', { key: user.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['workspaces']);
    return res.body.workspaces;
  }

  async function createWorkspace(user: User, name: string): Promise<any> {
    const res = await http(base, 'POST', '/v1/workspaces', { key: user.key, body: { name } });
    expect(res.status).toBe(201);
    return res.body.workspace;
  }

  async function createAgent(user: User, workspaceId?: string): Promise<string> {
    const body = workspaceId === undefined ? {} : { workspace_id: workspaceId };
    const res = await http(base, 'POST', '/v1/agents', { key: user.key, body });
    expect(res.status).toBe(201);
    return res.body.agent.agent_id;
  }

  async function agentIds(user: User): Promise<string[]> {
    const res = await http(base, 'GET', '/v1/agents?limit=200', { key: user.key });
    expect(res.status).toBe(200);
    return res.body.agents.map((a: { agent_id: string }) => a.agent_id);
  }

  async function counts(user: User): Promise<Record<string, number>> {
    return Object.fromEntries((await list(user)).map((w) => [w.workspace_id, w.agent_count]));
  }

  const ids = (workspaces: any[]) => workspaces.map((w) => w.workspace_id);

  describe('GET /v1/workspaces', () => {
    it('gives a brand-new user one default workspace with exactly the spec fields', async () => {
      const user = await newUser('fresh');
      const workspaces = await list(user);
      expect(workspaces).toHaveLength(1);
      const [ws] = workspaces;
      expect(Object.keys(ws).sort()).toEqual(WORKSPACE_KEYS);
      expect(ws).toEqual(
        expect.objectContaining({ name: 'Default', position: 0, agent_count: 0, icon_config: null, run_retention_days: null }),
      );
      expect(typeof ws.workspace_id).toBe('string');
      expect(ws.workspace_id.length).toBeGreaterThan(0);
      expect(ws.created_at).toMatch(ISO_UTC);
      expect(ws.updated_at).toMatch(ISO_UTC);
      expect(Number.isNaN(Date.parse(ws.created_at))).toBe(false);
      expect(Number.isNaN(Date.parse(ws.updated_at))).toBe(false);
    });

    it('answers 401 without a key', async () => {
      expectProblem(await http(base, 'GET', '/v1/workspaces'), 401);
    });
  });

  describe('POST /v1/workspaces', () => {
    it('creates workspaces after every existing one, and lists them by position', async () => {
      const user = await newUser('create');
      const [defaultWs] = await list(user);
      const created: any[] = [];
      for (const name of ['alpha', 'beta', 'gamma']) {
        const before = await list(user);
        const res = await http(base, 'POST', '/v1/workspaces', { key: user.key, body: { name } });
        expect(res.status).toBe(201);
        expect(Object.keys(res.body)).toEqual(['workspace']);
        const ws = res.body.workspace;
        expect(Object.keys(ws).sort()).toEqual(WORKSPACE_KEYS);
        expect(ws.name).toBe(name);
        expect(ws.agent_count).toBe(0);
        expect(ws.icon_config).toBeNull();
        expect(ws.created_at).toMatch(ISO_UTC);
        expect(ws.updated_at).toMatch(ISO_UTC);
        expect(Number.isInteger(ws.position)).toBe(true);
        for (const existing of before) expect(ws.position).toBeGreaterThan(existing.position);
        created.push(ws);
      }
      const after = await list(user);
      expect(ids(after)).toEqual([defaultWs.workspace_id, ...ids(created)]);
      expectStrictlyIncreasing(after.map((w) => w.position));
      expect(after.slice(1)).toEqual(created);
    });

    it.each([
      ['an empty name', { name: '' }],
      ['a name of 129 characters', { name: 'x'.repeat(129) }],
      ['no name', {}],
      ['a name that is not a string', { name: 7 }],
    ])('answers 400 naming name for %s', async (_case, body) => {
      const user = await newUser('bad-name');
      expectFieldProblem(await http(base, 'POST', '/v1/workspaces', { key: user.key, body }), 'name');
      expect(await list(user)).toHaveLength(1);
    });

    it('answers 400 naming an unknown body field', async () => {
      const user = await newUser('unknown-field');
      const res = await http(base, 'POST', '/v1/workspaces', { key: user.key, body: { name: 'ok', position: 3 } });
      expectFieldProblem(res, 'position');
      expect(await list(user)).toHaveLength(1);
    });

    it('accepts a name of exactly 128 characters', async () => {
      const user = await newUser('long-name');
      const ws = await createWorkspace(user, 'n'.repeat(128));
      expect(ws.name).toBe('n'.repeat(128));
    });
  });

  describe('PUT /v1/workspaces/{workspace_id}', () => {
    it('renames, sets icon_config, and keeps icon_config when it is omitted', async () => {
      const user = await newUser('rename');
      const ws = await createWorkspace(user, 'before');

      const renamed = await http(base, 'PUT', `/v1/workspaces/${ws.workspace_id}`, {
        key: user.key,
        body: { name: 'after', icon_config: '{"emoji":"rocket"}' },
      });
      expect(renamed.status).toBe(200);
      expect(Object.keys(renamed.body)).toEqual(['workspace']);
      expect(Object.keys(renamed.body.workspace).sort()).toEqual(WORKSPACE_KEYS);
      expect(renamed.body.workspace).toEqual(
        expect.objectContaining({
          workspace_id: ws.workspace_id,
          name: 'after',
          icon_config: '{"emoji":"rocket"}',
          position: ws.position,
          agent_count: 0,
          created_at: ws.created_at,
        }),
      );

      const again = await http(base, 'PUT', `/v1/workspaces/${ws.workspace_id}`, { key: user.key, body: { name: 'again' } });
      expect(again.status).toBe(200);
      expect(again.body.workspace.name).toBe('again');
      expect(again.body.workspace.icon_config).toBe('{"emoji":"rocket"}');

      const listed = (await list(user)).find((w) => w.workspace_id === ws.workspace_id);
      expect(listed).toEqual(again.body.workspace);
    });

    it("sets the workspace's run retention, keeps it when omitted, and gives it back to the installation default with null", async () => {
      const user = await newUser('retention');
      const ws = await createWorkspace(user, 'kept a week');
      expect(ws.run_retention_days).toBeNull();
      const put = (body: object) => http(base, 'PUT', `/v1/workspaces/${ws.workspace_id}`, { key: user.key, body: { name: 'kept a week', ...body } });

      expect((await put({ run_retention_days: 7 })).body.workspace.run_retention_days).toBe(7);
      expect((await put({ icon_config: 'x' })).body.workspace.run_retention_days).toBe(7);
      expect((await list(user)).find((w) => w.workspace_id === ws.workspace_id).run_retention_days).toBe(7);
      expect((await put({ run_retention_days: 0 })).body.workspace.run_retention_days).toBe(0);
      expect((await put({ run_retention_days: null })).body.workspace.run_retention_days).toBeNull();
    });

    it('answers 400 for a run retention that is not a whole number of days from 0 to 36,500, and changes nothing', async () => {
      const user = await newUser('retention-400');
      const ws = await createWorkspace(user, 'ws');
      for (const days of [-1, 1.5, '7', 36_501, true]) {
        expectFieldProblem(
          await http(base, 'PUT', `/v1/workspaces/${ws.workspace_id}`, { key: user.key, body: { name: 'ws', run_retention_days: days } }),
          'run_retention_days',
        );
      }
      expect((await list(user)).find((w) => w.workspace_id === ws.workspace_id).run_retention_days).toBeNull();
    });

    it('renames the default workspace too', async () => {
      const user = await newUser('rename-default');
      const [defaultWs] = await list(user);
      const res = await http(base, 'PUT', `/v1/workspaces/${defaultWs.workspace_id}`, { key: user.key, body: { name: 'Home' } });
      expect(res.status).toBe(200);
      expect(res.body.workspace.name).toBe('Home');
    });

    it('answers 400 without a name', async () => {
      const user = await newUser('rename-no-name');
      const ws = await createWorkspace(user, 'keep');
      expectFieldProblem(await http(base, 'PUT', `/v1/workspaces/${ws.workspace_id}`, { key: user.key, body: {} }), 'name');
      expectFieldProblem(
        await http(base, 'PUT', `/v1/workspaces/${ws.workspace_id}`, { key: user.key, body: { icon_config: 'x' } }),
        'name',
      );
      expect((await list(user)).find((w) => w.workspace_id === ws.workspace_id).name).toBe('keep');
    });

    it('answers 404 for an unknown, foreign or malformed workspace id', async () => {
      const user = await newUser('rename-404');
      const other = await newUser('rename-404-other');
      const theirs = await createWorkspace(other, 'theirs');
      for (const id of [randomUUID(), theirs.workspace_id, 'not-a-uuid']) {
        expectProblem(await http(base, 'PUT', `/v1/workspaces/${id}`, { key: user.key, body: { name: 'hijack' } }), 404);
      }
      expect((await list(other)).find((w) => w.workspace_id === theirs.workspace_id).name).toBe('theirs');
    });
  });

  describe('DELETE /v1/workspaces/{workspace_id}', () => {
    it('deletes the workspace and every agent in it, and nothing else', async () => {
      const user = await newUser('delete');
      const doomed = await createWorkspace(user, 'doomed');
      const kept = await createWorkspace(user, 'kept');
      const inDoomed = [await createAgent(user, doomed.workspace_id), await createAgent(user, doomed.workspace_id)];
      const inDefault = await createAgent(user);
      const inKept = await createAgent(user, kept.workspace_id);

      const res = await http(base, 'DELETE', `/v1/workspaces/${doomed.workspace_id}`, { key: user.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ deleted: true, error: null });

      for (const id of inDoomed) expectProblem(await http(base, 'GET', `/v1/agents/${id}`, { key: user.key }), 404);
      expect(await agentIds(user)).toEqual([inDefault, inKept]);
      for (const id of [inDefault, inKept]) expect((await http(base, 'GET', `/v1/agents/${id}`, { key: user.key })).status).toBe(200);

      const after = await list(user);
      expect(ids(after)).not.toContain(doomed.workspace_id);
      expect(after).toHaveLength(2);
      const byId = await counts(user);
      expect(byId[kept.workspace_id]).toBe(1);
      expect(byId[after[0].workspace_id]).toBe(1);

      expectProblem(await http(base, 'DELETE', `/v1/workspaces/${doomed.workspace_id}`, { key: user.key }), 404);
    });

    it('refuses to delete the default workspace, in the body, and deletes nothing', async () => {
      const user = await newUser('delete-default');
      const [defaultWs] = await list(user);
      const agent = await createAgent(user);
      const res = await http(base, 'DELETE', `/v1/workspaces/${defaultWs.workspace_id}`, { key: user.key });
      expect(res.status).toBe(200);
      expect(res.body.deleted).toBe(false);
      expect(typeof res.body.error).toBe('string');
      expect(res.body.error.length).toBeGreaterThan(0);
      expect(ids(await list(user))).toEqual([defaultWs.workspace_id]);
      expect(await agentIds(user)).toEqual([agent]);
      expect((await http(base, 'GET', `/v1/agents/${agent}`, { key: user.key })).status).toBe(200);
    });

    it('answers 404 for an unknown, foreign or malformed workspace id and leaves the other user’s workspace alone', async () => {
      const user = await newUser('delete-404');
      const other = await newUser('delete-404-other');
      const theirs = await createWorkspace(other, 'theirs');
      const theirAgent = await createAgent(other, theirs.workspace_id);
      for (const id of [randomUUID(), theirs.workspace_id, 'not-a-uuid']) {
        expectProblem(await http(base, 'DELETE', `/v1/workspaces/${id}`, { key: user.key }), 404);
      }
      expect(ids(await list(other))).toContain(theirs.workspace_id);
      expect((await http(base, 'GET', `/v1/agents/${theirAgent}`, { key: other.key })).status).toBe(200);
    });
  });

  describe('POST /v1/workspaces/reorder', () => {
    it('puts the given workspaces first in that order, the rest after in their previous order', async () => {
      const user = await newUser('reorder');
      const [d] = ids(await list(user));
      const a = (await createWorkspace(user, 'A')).workspace_id;
      const b = (await createWorkspace(user, 'B')).workspace_id;
      const c = (await createWorkspace(user, 'C')).workspace_id;

      const res = await http(base, 'POST', '/v1/workspaces/reorder', { key: user.key, body: { workspace_ids: [c, a] } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true });
      const after = await list(user);
      expect(ids(after)).toEqual([c, a, d, b]);
      expectStrictlyIncreasing(after.map((w) => w.position));

      const full = await http(base, 'POST', '/v1/workspaces/reorder', { key: user.key, body: { workspace_ids: [b, d, c, a] } });
      expect(full.status).toBe(200);
      expect(full.body).toEqual({ success: true });
      const last = await list(user);
      expect(ids(last)).toEqual([b, d, c, a]);
      expectStrictlyIncreasing(last.map((w) => w.position));

      // A workspace created after a reorder still goes last.
      const e = await createWorkspace(user, 'E');
      expect(ids(await list(user))).toEqual([b, d, c, a, e.workspace_id]);
    });

    it('answers 400 and changes nothing for ids the user does not own, duplicates, or an empty list', async () => {
      const user = await newUser('reorder-bad');
      const other = await newUser('reorder-bad-other');
      const theirs = await createWorkspace(other, 'theirs');
      const a = (await createWorkspace(user, 'A')).workspace_id;
      const b = (await createWorkspace(user, 'B')).workspace_id;
      const before = await list(user);
      const theirsBefore = await list(other);

      const bodies: unknown[] = [
        { workspace_ids: [b, theirs.workspace_id, a] },
        { workspace_ids: [b, randomUUID()] },
        { workspace_ids: [b, 'junk'] },
        { workspace_ids: [b, a, b] },
        { workspace_ids: [] },
        {},
        { workspace_ids: 'junk' },
      ];
      for (const body of bodies) {
        expectProblem(await http(base, 'POST', '/v1/workspaces/reorder', { key: user.key, body }), 400);
        expect(await list(user)).toEqual(before);
      }
      expect(await list(other)).toEqual(theirsBefore);
    });
  });

  it('keeps agent_count right through creating, moving and deleting agents', async () => {
    const user = await newUser('counts');
    const [defaultWs] = await list(user);
    const d = defaultWs.workspace_id;
    const w = (await createWorkspace(user, 'W')).workspace_id;

    const a1 = await createAgent(user, w);
    const a2 = await createAgent(user, w);
    const a3 = await createAgent(user);
    expect(await counts(user)).toEqual({ [d]: 1, [w]: 2 });

    const moved = await http(base, 'POST', `/v1/agents/${a1}/move`, { key: user.key, body: { workspace_id: d } });
    expect(moved.body).toEqual({ success: true, error: null });
    expect(await counts(user)).toEqual({ [d]: 2, [w]: 1 });

    expect((await http(base, 'DELETE', `/v1/agents/${a3}`, { key: user.key })).status).toBe(204);
    expect(await counts(user)).toEqual({ [d]: 1, [w]: 1 });

    expect((await http(base, 'DELETE', `/v1/agents/${a2}`, { key: user.key })).status).toBe(204);
    expect(await counts(user)).toEqual({ [d]: 1, [w]: 0 });
  });
});


function expectStrictlyIncreasing(values: number[]): void {
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]);
}

/** A 400 Problem naming `field` in its detail and in its `errors` list (request validation). */
function expectFieldProblem(res: HttpResult, field: string): void {
  expectProblem(res, 400);
  expect(res.body.detail).toContain(field);
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}
