import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { freshUser, User } from './support/test-users';

const KEY = 'runs-across-agents-key-0123456789';

/** GET /v1/runs: the caller's runs across agents, the per-agent list's filters, never another tenant's. */
describe('GET /v1/runs', () => {
  let system: TestSystem;
  let base: string;
  let owner: User;
  let stranger: User;
  let workspaceId: string;
  const agents: string[] = [];
  const runsOf = new Map<string, string[]>();

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { BUILTIN_RUNTIME_STEP_MS: '5' } });
    base = system.url();
    [owner, stranger] = [await freshUser(system, 'owner'), await freshUser(system, 'stranger')];
    workspaceId = (await http(base, 'POST', '/v1/workspaces', { key: owner.key, body: { name: 'Nightly' } })).body.workspace.workspace_id;
    for (const body of [{}, { workspace_id: workspaceId }, {}]) {
      agents.push((await http(base, 'POST', '/v1/agents', { key: owner.key, body })).body.agent.agent_id);
    }
    for (const [i, agentId] of agents.entries()) {
      const started = [];
      for (let n = 0; n <= i; n++) started.push(await startRun(owner, agentId, `goal ${i}-${n}`));
      runsOf.set(agentId, started);
    }
    const theirs = (await http(base, 'POST', '/v1/agents', { key: stranger.key, body: {} })).body.agent.agent_id;
    runsOf.set(theirs, [await startRun(stranger, theirs, 'the stranger')]);
    await eventually('every run finished', () => list(owner, '?filter_status=finished'), (body) => body.total_runs === 6, 15_000);
  });
  afterAll(() => system.stop());

  async function startRun(user: User, agentId: string, goal: string): Promise<string> {
    const res = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { skip_deploy_check: true, user_message: goal } });
    expect(res.status).toBe(201);
    return res.body.run.run_id;
  }

  const list = async (user: User, query = '') => {
    const res = await http(base, 'GET', `/v1/runs${query}`, { key: user.key });
    expect(res.status).toBe(200);
    return res.body;
  };
  const ids = (body: { runs: Array<{ run_id: string }> }) => body.runs.map((r) => r.run_id).sort();
  const all = (...agentIds: string[]) => agentIds.flatMap((a) => runsOf.get(a)!).sort();

  it("lists every run of the caller's agents, newest first, in the per-agent list's shape", async () => {
    const body = await list(owner);
    expect(Object.keys(body).sort()).toEqual(['all_run_summaries', 'page', 'page_size', 'runs', 'total_runs', 'total_runs_is_estimate']);
    expect(ids(body)).toEqual(all(...agents));
    expect(body).toMatchObject({ total_runs: 6, total_runs_is_estimate: false, page: 1, page_size: 100 });
    const started = body.runs.map((r: { started_at: string }) => Date.parse(r.started_at));
    expect(started).toEqual([...started].sort((x, y) => y - x));
    expect(body.all_run_summaries.map((s: { run_id: string }) => s.run_id)).toEqual(body.runs.map((r: { run_id: string }) => r.run_id));
    const perAgent = (await http(base, 'GET', `/v1/agents/${agents[2]}/runs`, { key: owner.key })).body.runs[0];
    expect(body.runs.find((r: { run_id: string }) => r.run_id === perAgent.run_id)).toEqual(perAgent);
  });

  it('pages with totals that agree across pages', async () => {
    const first = await list(owner, '?page_size=4');
    const second = await list(owner, '?page_size=4&page=2');
    expect([first.runs.length, second.runs.length, first.total_runs, second.total_runs]).toEqual([4, 2, 6, 6]);
    expect([...ids(first), ...ids(second)].sort()).toEqual(all(...agents));
  });

  it('narrows by agent, workspace and the per-agent filters', async () => {
    expect(ids(await list(owner, `?filter_agent_id=${agents[2]}`))).toEqual(all(agents[2]));
    expect(ids(await list(owner, `?filter_workspace_id=${workspaceId}`))).toEqual(all(agents[1]));
    const one = runsOf.get(agents[1])![0];
    expect(ids(await list(owner, `?filter_run_id=${one}`))).toEqual([one]);
    expect((await list(owner, '?filter_status=completed')).total_runs).toBe(6);
    expect(ids(await list(owner, '?filter_goal=GOAL%202-'))).toEqual(all(agents[2]));
    expect((await list(owner, '?filter_status=stopped')).total_runs).toBe(0);
  });

  it("shows a stranger none of the owner's runs, whatever they filter by", async () => {
    expect(ids(await list(stranger))).toEqual(runsOf.get([...runsOf.keys()][3])!);
    for (const query of [`?filter_agent_id=${agents[0]}`, `?filter_workspace_id=${workspaceId}`, `?filter_run_id=${runsOf.get(agents[0])![0]}`]) {
      expect(await list(stranger, query)).toMatchObject({ runs: [], total_runs: 0, total_runs_is_estimate: false });
    }
  });

  it("drops a deleted agent's runs at once", async () => {
    const gone = agents[0];
    expect((await http(base, 'DELETE', `/v1/agents/${gone}`, { key: owner.key })).status).toBeLessThan(300);
    const body = await list(owner);
    expect(ids(body)).toEqual(all(agents[1], agents[2]));
    expect(body.total_runs).toBe(5);
  });

  it('answers bad filters and missing keys with Problem Details', async () => {
    expectProblem(await http(base, 'GET', '/v1/runs?filter_agent_id=not-a-uuid', { key: owner.key }), 400);
    expectProblem(await http(base, 'GET', '/v1/runs?filter_workspace_id=1', { key: owner.key }), 400);
    expectProblem(await http(base, 'GET', '/v1/runs?page_size=100000', { key: owner.key }), 400);
    expectProblem(await http(base, 'GET', '/v1/runs'), 401);
  });
});
