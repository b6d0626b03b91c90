import { randomUUID } from 'node:crypto';
import { HttpResult, expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const BOOTSTRAP_KEY = 'e2e-bootstrap-key-agents-0123456789';

const AGENT_KEYS = [
  'active_build_run_id',
  'agent_id',
  'agent_name',
  'deployment_state',
  'has_instruction_build',
  'has_runs',
  'icon_config',
  'last_activity_at',
  'last_chat_message',
  'latest_build_run_id',
  'latest_instruction_build_run_id',
  'latest_run_has_pending_input',
  'latest_run_id',
  'latest_run_is_finished',
  'latest_run_status',
  'unread',
  'workspace_id',
].sort();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;


describe('Agents through the gateway', () => {
  let system: TestSystem;
  let base: string;

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: BOOTSTRAP_KEY });
    base = system.url(0);
  });
  afterAll(() => system.stop());

  const newUser = (label: string) => freshUser(system, label);

  async function createAgent(user: User, body: Record<string, unknown> = {}): Promise<any> {
    const res = await http(base, 'POST', '/v1/agents', { key: user.key, body });
    expect(res.status).toBe(201);
    return res.body.agent;
  }

  async function createWorkspace(user: User, name: string): Promise<any> {
    const res = await http(base, 'POST', '/v1/workspaces', { key: user.key, body: { name } });
    expect(res.status).toBe(201);
    return res.body.workspace;
  }

  async function workspaces(user: User): Promise<any[]> {
    const res = await http(base, 'GET', '/v1/workspaces', { key: user.key });
    expect(res.status).toBe(200);
    return res.body.workspaces;
  }

  async function defaultWorkspaceId(user: User): Promise<string> {
    const list = await workspaces(user);
    const found = list.find((w) => w.name === 'Default');
    expect(found).toBeDefined();
    return found.workspace_id;
  }

  async function listIds(user: User, query = ''): Promise<string[]> {
    const res = await http(base, 'GET', `/v1/agents${query}`, { key: user.key });
    expect(res.status).toBe(200);
    return res.body.agents.map((a: { agent_id: string }) => a.agent_id);
  }

  describe('POST /v1/agents', () => {
    it('creates an agent with exactly the spec fields and the values of a new agent', async () => {
      const user = await newUser('shape');
      const defaultId = await defaultWorkspaceId(user);
      const res = await http(base, 'POST', '/v1/agents', { key: user.key, body: {} });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['agent']);
      const agent = res.body.agent;
      expect(Object.keys(agent).sort()).toEqual(AGENT_KEYS);
      expect(agent).not.toHaveProperty('deployed_at');
      expect(agent.agent_id).toMatch(UUID);
      expect(agent).toEqual(
        expect.objectContaining({
          unread: false,
          agent_name: null,
          workspace_id: defaultId,
          active_build_run_id: null,
          latest_build_run_id: null,
          latest_instruction_build_run_id: null,
          latest_run_id: '',
          latest_run_status: null,
          latest_run_is_finished: null,
          latest_run_has_pending_input: null,
          has_runs: false,
          has_instruction_build: false,
          icon_config: null,
          last_chat_message: null,
          deployment_state: 'not_deployed',
        }),
      );
      if (agent.last_activity_at !== null) {
        expect(typeof agent.last_activity_at).toBe('string');
        expect(agent.last_activity_at).toMatch(/Z$/);
        expect(Number.isNaN(Date.parse(agent.last_activity_at))).toBe(false);
      }
    });

    it('uses an explicit agent_id and answers 409 when that id is taken', async () => {
      const user = await newUser('explicit');
      const id = randomUUID();
      const agent = await createAgent(user, { agent_id: id });
      expect(agent.agent_id).toBe(id);
      expect((await http(base, 'GET', `/v1/agents/${id}`, { key: user.key })).status).toBe(200);

      expectProblem(await http(base, 'POST', '/v1/agents', { key: user.key, body: { agent_id: id } }), 409);
      expect(await listIds(user)).toEqual([id]);
    });

    it('answers 400 naming agent_id when it is not a UUID', async () => {
      const user = await newUser('bad-id');
      const res = await http(base, 'POST', '/v1/agents', { key: user.key, body: { agent_id: 'not-a-uuid' } });
      expectFieldProblem(res, 'agent_id', { fieldErrors: true });
      expect(await listIds(user)).toEqual([]);
    });

    it('answers 400 naming workspace_id for another user’s or an unknown workspace', async () => {
      const user = await newUser('ws-owner');
      const other = await newUser('ws-other');
      const theirs = await createWorkspace(other, 'theirs');
      const theirDefault = await defaultWorkspaceId(other);
      for (const workspace_id of [theirs.workspace_id, theirDefault, randomUUID()]) {
        const res = await http(base, 'POST', '/v1/agents', { key: user.key, body: { workspace_id } });
        expectFieldProblem(res, 'workspace_id');
      }
      expect(await listIds(user)).toEqual([]);
      expect(await listIds(other)).toEqual([]);
    });

    it('creates the agent in a workspace of the caller when workspace_id is given', async () => {
      const user = await newUser('ws-given');
      const ws = await createWorkspace(user, 'mine');
      const agent = await createAgent(user, { workspace_id: ws.workspace_id });
      expect(agent.workspace_id).toBe(ws.workspace_id);
    });

    it('accepts derived_from_agent_id of the caller’s own agent and answers 400 for another user’s agent', async () => {
      const user = await newUser('derive');
      const other = await newUser('derive-other');
      const mine = await createAgent(user);
      const theirs = await createAgent(other);

      const derived = await createAgent(user, { derived_from_agent_id: mine.agent_id });
      expect(derived.agent_id).not.toBe(mine.agent_id);

      const res = await http(base, 'POST', '/v1/agents', { key: user.key, body: { derived_from_agent_id: theirs.agent_id } });
      expectProblem(res, 400);
      expect(await listIds(user)).toEqual([mine.agent_id, derived.agent_id]);
    });

    it('accepts owner_user_id only when it is the caller’s own user id', async () => {
      const user = await newUser('owner');
      const other = await newUser('owner-other');
      expectProblem(await http(base, 'POST', '/v1/agents', { key: user.key, body: { owner_user_id: other.userId } }), 400);
      expectProblem(await http(base, 'POST', '/v1/agents', { key: user.key, body: { owner_user_id: randomUUID() } }), 400);
      expect(await listIds(user)).toEqual([]);
      expect(await listIds(other)).toEqual([]);

      const own = await http(base, 'POST', '/v1/agents', { key: user.key, body: { owner_user_id: user.userId } });
      expect(own.status).toBe(201);
      expect(await listIds(user)).toEqual([own.body.agent.agent_id]);
    });

    it('accepts is_subagent true', async () => {
      const user = await newUser('subagent');
      const res = await http(base, 'POST', '/v1/agents', { key: user.key, body: { is_subagent: true } });
      expect(res.status).toBe(201);
      expect(res.body.agent.agent_id).toMatch(UUID);
    });

    it('answers 400 naming an unknown body field', async () => {
      const user = await newUser('unknown-field');
      const res = await http(base, 'POST', '/v1/agents', { key: user.key, body: { agent_name: 'x' } });
      expectFieldProblem(res, 'agent_name', { fieldErrors: true });
      expect(await listIds(user)).toEqual([]);
    });

    it('answers 401 without a key', async () => {
      expectProblem(await http(base, 'POST', '/v1/agents', { body: {} }), 401);
      expectProblem(await http(base, 'GET', '/v1/agents'), 401);
    });

    it('ends onboarding with the user’s first agent', async () => {
      const user = await newUser('onboarding');
      const before = await http(base, 'GET', '/v1/me', { key: user.key });
      expect(before.status).toBe(200);
      expect(before.body.needs_onboarding).toBe(true);
      await createAgent(user);
      const after = await http(base, 'GET', '/v1/me', { key: user.key });
      expect(after.body).toEqual({ user_id: user.userId, needs_onboarding: false });
    });
  });

  describe('GET /v1/agents', () => {
    it('lists agents oldest first with a null next_cursor on the last page', async () => {
      const user = await newUser('order');
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push((await createAgent(user)).agent_id);
      const res = await http(base, 'GET', '/v1/agents', { key: user.key });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['agents', 'next_cursor']);
      expect(res.body.agents.map((a: { agent_id: string }) => a.agent_id)).toEqual(ids);
      expect(res.body.next_cursor).toBeNull();
      for (const agent of res.body.agents) expect(Object.keys(agent).sort()).toEqual(AGENT_KEYS);
    });

    it('pages 50 by default and when limit is 0, and up to 200 when asked', async () => {
      const user = await newUser('limits');
      const ids: string[] = [];
      for (let i = 0; i < 52; i++) ids.push((await createAgent(user)).agent_id);

      for (const query of ['', '?limit=0']) {
        const page = await http(base, 'GET', `/v1/agents${query}`, { key: user.key });
        expect(page.status).toBe(200);
        expect(page.body.agents.map((a: { agent_id: string }) => a.agent_id)).toEqual(ids.slice(0, 50));
        expect(typeof page.body.next_cursor).toBe('string');
        const rest = await http(base, 'GET', `/v1/agents?cursor=${encodeURIComponent(page.body.next_cursor)}${query ? '&limit=0' : ''}`, {
          key: user.key,
        });
        expect(rest.status).toBe(200);
        expect(rest.body.agents.map((a: { agent_id: string }) => a.agent_id)).toEqual(ids.slice(50));
        expect(rest.body.next_cursor).toBeNull();
      }

      const all = await http(base, 'GET', '/v1/agents?limit=200', { key: user.key });
      expect(all.status).toBe(200);
      expect(all.body.agents.map((a: { agent_id: string }) => a.agent_id)).toEqual(ids);
      expect(all.body.next_cursor).toBeNull();
    });

    it('answers 400 naming limit above 200 or below 0, and naming cursor for a garbage cursor', async () => {
      const user = await newUser('bad-query');
      await createAgent(user);
      expectFieldProblem(await http(base, 'GET', '/v1/agents?limit=201', { key: user.key }), 'limit', { fieldErrors: true });
      expectFieldProblem(await http(base, 'GET', '/v1/agents?limit=-1', { key: user.key }), 'limit', { fieldErrors: true });
      expectFieldProblem(await http(base, 'GET', '/v1/agents?cursor=not-a-cursor', { key: user.key }), 'cursor');
    });

    it('pages stably while agents are created and deleted during the walk', async () => {
      const user = await newUser('stable');
      const initial: string[] = [];
      for (let i = 0; i < 8; i++) initial.push((await createAgent(user)).agent_id);

      const seen: string[] = [];
      const createdDuringWalk: string[] = [];
      const deleted: string[] = [];
      const deletedAfterSeen: string[] = [];
      let cursor: string | null = null;
      for (let pages = 0; pages < 20; pages++) {
        const query: string = cursor === null ? '?limit=3' : `?limit=3&cursor=${encodeURIComponent(cursor)}`;
        const page = await http(base, 'GET', `/v1/agents${query}`, { key: user.key });
        expect(page.status).toBe(200);
        expect(page.body.agents.length).toBeLessThanOrEqual(3);
        seen.push(...page.body.agents.map((a: { agent_id: string }) => a.agent_id));
        cursor = page.body.next_cursor;
        if (cursor === null) break;
        expect(page.body.agents).toHaveLength(3);

        // Between pages: two new agents, and one agent not seen yet is deleted. An agent
        // already seen is deleted too, which must not make the walk skip anything.
        for (let i = 0; i < 2; i++) createdDuringWalk.push((await createAgent(user)).agent_id);
        const victim = [...initial, ...createdDuringWalk].find((id) => !seen.includes(id) && !deleted.includes(id));
        if (victim !== undefined) {
          expect((await http(base, 'DELETE', `/v1/agents/${victim}`, { key: user.key })).status).toBe(204);
          deleted.push(victim);
        }
        const seenVictim = seen.find((id) => !deletedAfterSeen.includes(id));
        if (seenVictim !== undefined) {
          expect((await http(base, 'DELETE', `/v1/agents/${seenVictim}`, { key: user.key })).status).toBe(204);
          deletedAfterSeen.push(seenVictim);
        }
      }
      expect(cursor).toBeNull();
      expect(deleted.length).toBeGreaterThan(0);
      expect(createdDuringWalk.length).toBeGreaterThan(0);

      expect(new Set(seen).size).toBe(seen.length);
      for (const id of deleted) expect(seen).not.toContain(id);
      const expected = [...initial, ...createdDuringWalk].filter((id) => !deleted.includes(id));
      for (const id of expected) expect(seen).toContain(id);
      // Creation order, oldest first: the agents created during the walk sort last.
      expect(seen).toEqual(expected);
    });

    it('filters by workspace_id, and answers an empty list for a workspace the caller does not own', async () => {
      const user = await newUser('filter-ws');
      const other = await newUser('filter-ws-other');
      const ws = await createWorkspace(user, 'second');
      const inDefault = await createAgent(user);
      const inSecond = await createAgent(user, { workspace_id: ws.workspace_id });
      await createAgent(other);

      expect(await listIds(user, `?workspace_id=${ws.workspace_id}`)).toEqual([inSecond.agent_id]);
      expect(await listIds(user, `?workspace_id=${inDefault.workspace_id}`)).toEqual([inDefault.agent_id]);

      const theirDefault = await defaultWorkspaceId(other);
      expect(await listIds(user, `?workspace_id=${theirDefault}`)).toEqual([]);
      expect(await listIds(user, `?workspace_id=${randomUUID()}`)).toEqual([]);
    });

    it('answers an empty list for a policy_type filter when no agent has a policy type', async () => {
      const user = await newUser('policy');
      await createAgent(user);
      await createAgent(user);
      const res = await http(base, 'GET', '/v1/agents?policy_type=anything', { key: user.key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ agents: [], next_cursor: null });
    });
  });

  describe('GET /v1/agents/{agent_id}', () => {
    it('returns the agent as it was created', async () => {
      const user = await newUser('get');
      const created = await createAgent(user);
      const res = await http(base, 'GET', `/v1/agents/${created.agent_id}`, { key: user.key });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['agent']);
      expect(Object.keys(res.body.agent).sort()).toEqual(AGENT_KEYS);
      expect(res.body.agent).toEqual(created);
    });

    it('answers 404, never 500, for malformed, unknown and foreign ids', async () => {
      const user = await newUser('get-404');
      const other = await newUser('get-404-other');
      const theirs = await createAgent(other);
      for (const id of ['abc', encodeURIComponent("1'; DROP TABLE x"), randomUUID(), theirs.agent_id]) {
        expectProblem(await http(base, 'GET', `/v1/agents/${id}`, { key: user.key }), 404);
      }
      expect((await http(base, 'GET', `/v1/agents/${theirs.agent_id}`, { key: other.key })).status).toBe(200);
    });
  });

  describe('DELETE /v1/agents/{agent_id}', () => {
    it('deletes with 204 and an empty body; afterwards the agent is a 404', async () => {
      const user = await newUser('delete');
      const agent = await createAgent(user);
      const keep = await createAgent(user);
      const res = await http(base, 'DELETE', `/v1/agents/${agent.agent_id}`, { key: user.key });
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      expectProblem(await http(base, 'GET', `/v1/agents/${agent.agent_id}`, { key: user.key }), 404);
      expectProblem(await http(base, 'DELETE', `/v1/agents/${agent.agent_id}`, { key: user.key }), 404);
      expect(await listIds(user)).toEqual([keep.agent_id]);
    });

    it('answers 404 for another user’s agent and leaves it alone', async () => {
      const user = await newUser('delete-foreign');
      const other = await newUser('delete-foreign-other');
      const theirs = await createAgent(other);
      expectProblem(await http(base, 'DELETE', `/v1/agents/${theirs.agent_id}`, { key: user.key }), 404);
      expectProblem(await http(base, 'DELETE', '/v1/agents/not-a-uuid', { key: user.key }), 404);
      expect((await http(base, 'GET', `/v1/agents/${theirs.agent_id}`, { key: other.key })).status).toBe(200);
    });
  });

  describe('POST /v1/agents/{agent_id}/move', () => {
    it('moves the agent and updates both workspaces’ agent counts', async () => {
      const user = await newUser('move');
      const target = await createWorkspace(user, 'target');
      const agent = await createAgent(user);
      const source = agent.workspace_id;
      const counts = async () => {
        const list = await workspaces(user);
        const count = (id: string) => list.find((w) => w.workspace_id === id).agent_count;
        return [count(source), count(target.workspace_id)];
      };
      expect(await counts()).toEqual([1, 0]);

      const res = await http(base, 'POST', `/v1/agents/${agent.agent_id}/move`, {
        key: user.key,
        body: { workspace_id: target.workspace_id },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, error: null });
      const moved = await http(base, 'GET', `/v1/agents/${agent.agent_id}`, { key: user.key });
      expect(moved.body.agent.workspace_id).toBe(target.workspace_id);
      expect(await counts()).toEqual([0, 1]);
      expect(await listIds(user, `?workspace_id=${target.workspace_id}`)).toEqual([agent.agent_id]);
    });

    it('reports failure in the body for another user’s or an unknown target workspace, and does not move', async () => {
      const user = await newUser('move-bad');
      const other = await newUser('move-bad-other');
      const theirs = await createWorkspace(other, 'theirs');
      const agent = await createAgent(user);
      for (const workspace_id of [theirs.workspace_id, randomUUID()]) {
        const res = await http(base, 'POST', `/v1/agents/${agent.agent_id}/move`, { key: user.key, body: { workspace_id } });
        expect(res.status).toBe(200);
        expect(res.body.success).toBe(false);
        expect(typeof res.body.error).toBe('string');
        expect(res.body.error.length).toBeGreaterThan(0);
        const after = await http(base, 'GET', `/v1/agents/${agent.agent_id}`, { key: user.key });
        expect(after.body.agent.workspace_id).toBe(agent.workspace_id);
      }
      const theirList = await workspaces(other);
      expect(theirList.every((w) => w.agent_count === 0)).toBe(true);
    });

    it('answers 400 without workspace_id and 404 for an unknown or foreign agent', async () => {
      const user = await newUser('move-errors');
      const other = await newUser('move-errors-other');
      const agent = await createAgent(user);
      const theirs = await createAgent(other);
      const target = await createWorkspace(user, 'target');
      expectFieldProblem(await http(base, 'POST', `/v1/agents/${agent.agent_id}/move`, { key: user.key, body: {} }), 'workspace_id', {
        fieldErrors: true,
      });
      for (const id of [randomUUID(), theirs.agent_id, 'abc']) {
        const res = await http(base, 'POST', `/v1/agents/${id}/move`, { key: user.key, body: { workspace_id: target.workspace_id } });
        expectProblem(res, 404);
      }
      const theirAgent = await http(base, 'GET', `/v1/agents/${theirs.agent_id}`, { key: other.key });
      expect(theirAgent.body.agent.workspace_id).toBe(theirs.workspace_id);
    });
  });

  it('keeps the HTTP contract of the agent reads it relays unparsed: JSON with its charset and length, errors as Problem Details', async () => {
    const user = await newUser('relay');
    const agent = await createAgent(user);
    for (const path of [`/v1/agents/${agent.agent_id}`, '/v1/agents']) {
      const res = await http(base, 'GET', path, { key: user.key });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(JSON.stringify(res.body))));
    }
    expect((await http(base, 'GET', `/v1/agents/${agent.agent_id}`, { key: user.key })).body).toEqual({ agent });
    expectProblem(await http(base, 'GET', `/v1/agents/${randomUUID()}`, { key: user.key }), 404);
  });

  it('shows a second user none of the first user’s agents, workspaces or instructions', async () => {
    const first = await newUser('isolation-first');
    const second = await newUser('isolation-second');
    const ws = await createWorkspace(first, 'private');
    const agent = await createAgent(first, { workspace_id: ws.workspace_id });
    const put = await http(base, 'PUT', `/v1/agents/${agent.agent_id}/instructions`, { key: first.key, body: { content: 'secret' } });
    expect(put.status).toBe(200);

    expect(await listIds(second)).toEqual([]);
    const theirWorkspaces = await workspaces(second);
    expect(theirWorkspaces).toHaveLength(1);
    const firstIds = (await workspaces(first)).map((w) => w.workspace_id);
    for (const w of theirWorkspaces) expect(firstIds).not.toContain(w.workspace_id);
    expectProblem(await http(base, 'GET', `/v1/agents/${agent.agent_id}/instructions`, { key: second.key }), 404);
    expectProblem(await http(base, 'GET', `/v1/agents/${agent.agent_id}/instructions/history`, { key: second.key }), 404);
    expect(await listIds(second, `?workspace_id=${ws.workspace_id}`)).toEqual([]);
  });
});


/**
 * A 400 Problem naming `field` in its detail (and in `errors`, when the answer lists them).
 * With fieldErrors the `errors` list is required, as for request-validation failures.
 */
function expectFieldProblem(res: HttpResult, field: string, options: { fieldErrors?: boolean } = {}): void {
  expectProblem(res, 400);
  expect(res.body.detail).toContain(field);
  if (options.fieldErrors || res.body.errors !== undefined) {
    expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
  }
}
