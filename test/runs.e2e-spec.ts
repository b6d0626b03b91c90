import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { RunExecutor } from '../apps/runs-service/src/execution/run-executor';
import { ApiKeysService } from '../apps/agents-service/src/api-keys/api-keys.service';
import { UsersService } from '../apps/agents-service/src/users/users.service';
import { expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { eventually } from './support/eventually';

const KEY = 'runs-bootstrap-key-0123456789abc';

describe('Runs through the gateway (built-in runtime)', () => {
  let system: TestSystem;
  let base: string;

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { BUILTIN_RUNTIME_STEP_MS: '20' } });
    base = system.url();
  });
  afterAll(() => system.stop());

  const newAgent = async () => (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id as string;
  const getRun = async (agentId: string, runId: string) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run;

  async function finished(agentId: string, runId: string) {
    const until = Date.now() + 15_000;
    for (;;) {
      const run = await getRun(agentId, runId);
      if (run.is_finished) return run;
      if (Date.now() > until) throw new Error(`run ${runId} did not finish: ${JSON.stringify(run)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function deployedAgent(): Promise<string> {
    const agentId = await newAgent();
    const build = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { run_mode: 'build' } });
    await finished(agentId, build.body.run.run_id);
    await eventually(
      'the agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent,
      (a) => a.deployment_state === 'deployed',
      10_000,
    );
    return agentId;
  }

  it('refuses a run-mode run of an undeployed agent unless the deploy check is skipped', async () => {
    const agentId = await newAgent();
    expectProblem(await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: {} }), 400);
    const res = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } });
    expect(res.status).toBe(201);
    expect(res.body.run).toMatchObject({ agent_id: agentId, run_number: 1, status: 'in_progress', is_finished: false, is_paused: false });
    expect(res.body.run).not.toHaveProperty('finished_at');
  });

  it('records the instructions version each run ran, which later instructions do not change', async () => {
    const agentId = await deployedAgent();
    const versions = async () => (await http(base, 'GET', `/v1/agents/${agentId}/instructions/history`, { key: KEY })).body.instruction_versions;
    const runOnce = async () => finished(agentId, (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: {} })).body.run.run_id);
    const [built] = await versions();
    const first = await runOnce();
    expect(first.instructions_version_id).toBe(built.id);
    const put = await http(base, 'PUT', `/v1/agents/${agentId}/instructions`, { key: KEY, body: { content: 'the second version' } });
    expect(put.status).toBe(200);
    const [second] = await versions();
    expect(second.id).not.toBe(built.id);
    expect((await runOnce()).instructions_version_id).toBe(second.id);
    expect((await getRun(agentId, first.run_id)).instructions_version_id).toBe(built.id);
    expect(first.trigger_data).toBeNull();
  });

  it('a build run deploys the agent, writes its instructions and updates its run summary', async () => {
    const agentId = await newAgent();
    const start = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { run_mode: 'build', user_message: 'set it up' } });
    expect(start.status).toBe(201);
    const run = await finished(agentId, start.body.run.run_id);
    expect(run).toMatchObject({ status: 'completed', wrote_instructions: true, goal: 'set it up' });
    expect(typeof run.finished_at).toBe('string');

    const agent = await eventually(
      'the agent deployed by its build run',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent,
      (a) => a.deployment_state === 'deployed' && a.latest_run_is_finished === true,
      10_000,
    );
    expect(agent).toMatchObject({
      has_runs: true,
      latest_run_id: run.run_id,
      latest_run_status: 'completed',
      latest_build_run_id: run.run_id,
      latest_instruction_build_run_id: run.run_id,
      active_build_run_id: null,
    });
    expect(typeof agent.deployed_at).toBe('string');
    // The run's instructions reach agents-service by event (run.instructions), as its summary does.
    const instructions = await eventually(
      'the instructions the build wrote',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}/instructions`, { key: KEY })).body.instructions,
      (i) => i !== null,
      10_000,
    );
    expect(instructions.source_id).toBe(run.run_id);
    expect(instructions.content_hash).toBe(createHash('sha256').update(instructions.content).digest('hex'));
    const history = (await http(base, 'GET', `/v1/agents/${agentId}/instructions/history`, { key: KEY })).body;
    expect(history.instruction_versions[0]).toMatchObject({ source_type: 'builder', source_id: run.run_id });
  });

  it('records event 0 as started, one step per plan step, then completed, with contiguous indices and counters', async () => {
    const agentId = await deployedAgent();
    const steps = [0, 1, 2].map((order) => ({ title: `s${order}`, description: 'd', tools: [], order }));
    await http(base, 'PUT', `/v1/agents/${agentId}/instructions`, { key: KEY, body: { content: 'c', plan_steps: steps } });
    const start = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: {} });
    const run = await finished(agentId, start.body.run.run_id);
    const res = await http(base, 'GET', `/v1/agents/${agentId}/runs/${run.run_id}/events`, { key: KEY });
    expect(res.status).toBe(200);
    const events = res.body.events;
    expect(events.map((e: { event_index: number }) => e.event_index)).toEqual(events.map((_: unknown, i: number) => i));
    expect(Object.keys(events[0]).sort()).toEqual(['event', 'event_index', 'recorded_at']);
    expect(events[0].event).toEqual({ started: {} });
    expect(events.filter((e: { event: object }) => 'step' in e.event).map((e: any) => e.event.step.title)).toEqual(['s0', 's1', 's2']);
    expect(events[events.length - 1].event.completed.outcome).toBe('success');
    expect(res.body.total_count).toBe(events.length);
    expect(run).toMatchObject({ status: 'completed', event_count: events.length, step_count: 3 });
    expect(run.event_bytes).toBeGreaterThan(0);

    const page = await http(base, 'GET', `/v1/agents/${agentId}/runs/${run.run_id}/events?after_index=1&limit=2`, { key: KEY });
    expect(page.body.events.map((e: { event_index: number }) => e.event_index)).toEqual([2, 3]);
    expect(page.body.total_count).toBe(events.length);

    const list = await http(base, 'GET', `/v1/agents/${agentId}/runs?filter_run_id=${run.run_id}`, { key: KEY });
    expect(list.body.all_run_summaries[0]).toMatchObject({ run_id: run.run_id, outcome: 'success', is_finished: true, is_paused: false });
    expect(list.body.all_run_summaries[0].tool_icons).toEqual([]);
  });

  it('numbers 20 concurrent starts 1..20 without gaps or repeats', async () => {
    const agentId = await newAgent();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(results.map((r) => r.body.run.run_number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('pages and filters the run list', async () => {
    const agentId = await deployedAgent();
    for (const goal of ['alpha task', 'beta task', 'gamma']) {
      const res = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { user_message: goal } });
      await finished(agentId, res.body.run.run_id);
    }
    const all = await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY });
    expect(all.body).toMatchObject({ total_runs: 4, page: 1, page_size: 100 });
    expect(all.body.runs.map((r: { run_number: number }) => r.run_number)).toEqual([4, 3, 2, 1]);
    const second = await http(base, 'GET', `/v1/agents/${agentId}/runs?page=2&page_size=3`, { key: KEY });
    expect(second.body.runs.map((r: { run_number: number }) => r.run_number)).toEqual([1]);
    expect(second.body.total_runs).toBe(4);
    const q = async (query: string) =>
      (await http(base, 'GET', `/v1/agents/${agentId}/runs?${query}`, { key: KEY })).body.runs.map((r: { run_number: number }) => r.run_number);
    expect(await q('filter_policy_group=builder')).toEqual([1]);
    expect(await q('filter_policy_group=runner')).toEqual([4, 3, 2]);
    expect(await q('filter_goal=TASK')).toEqual([3, 2]);
    expect(await q('filter_status=completed')).toEqual([4, 3, 2, 1]);
    expect(await q('filter_status=finished')).toEqual([4, 3, 2, 1]);
    expect(await q('filter_status=in_progress')).toEqual([]);
    expect(await q(`filter_started_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect(await q(`filter_started_before=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([4, 3, 2, 1]);
    const third = all.body.runs.find((r: { run_number: number }) => r.run_number === 3);
    expect(await q(`filter_started_before=${encodeURIComponent(third.started_at)}`)).toEqual([3, 2, 1]);
    expect(await q(`filter_started_after=${encodeURIComponent(third.started_at)}`)).toEqual([4, 3]);
    expect(await q('filter_policy_type=builder')).toEqual([1]);
    expect(await q('filter_policy_type=runner')).toEqual([4, 3, 2]);
    expect(await q('filter_policy_type=other')).toEqual([]);
    expect(await q(`filter_run_id=${third.run_id}`)).toEqual([3]);
    expect(await q('filter_run_id=not-a-run')).toEqual([]);
    expect(await q('filter_user_email=nobody@example.test')).toEqual([]);
    expect(await q('filter_user_email=admin@localhost')).toEqual([4, 3, 2, 1]);
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/runs?filter_status=bogus`, { key: KEY }), 400);
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/runs?page_size=-1`, { key: KEY }), 400);
  });

  it('keeps a counted total (filter_goal, a page that does not prove it) exact as runs start, finish and are deleted', async () => {
    const agentId = await newAgent();
    const start = async (goal: string) =>
      (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { user_message: goal, skip_deploy_check: true } })).body
        .run.run_id;
    const total = async (query: string) =>
      (await http(base, 'GET', `/v1/agents/${agentId}/runs?page_size=1&${query}`, { key: KEY })).body.total_runs;
    for (const goal of ['first task', 'second task', 'other']) await finished(agentId, await start(goal));
    expect(await total('filter_goal=task')).toBe(2);
    expect(await total('filter_goal=task')).toBe(2); // the remembered total

    const third = await start('third task');
    expect(await total('filter_goal=task')).toBe(3);
    await finished(agentId, third);
    expect(await total('filter_goal=task&filter_status=completed')).toBe(3);
    expect((await http(base, 'DELETE', `/v1/agents/${agentId}/runs/${third}`, { key: KEY })).status).toBe(204);
    expect(await total('filter_goal=task')).toBe(2);
    expect(await total('filter_goal=task&filter_status=completed')).toBe(2);
  });

  describe('with slow steps', () => {
    let slow: TestSystem;
    beforeAll(async () => {
      slow = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { BUILTIN_RUNTIME_STEP_MS: '5000' } });
    });
    afterAll(() => slow.stop());

    it('cancels a running run, and cancelling it again changes nothing', async () => {
      const url = slow.url();
      const agentId = (await http(url, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
      const start = await http(url, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } });
      const runId = start.body.run.run_id;
      await eventually(
        'the first run event',
        async () => (await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run.event_count,
        (n) => n >= 1,
        10_000,
      );
      const cancel = await http(url, 'POST', `/v1/agents/${agentId}/runs/${runId}/cancel`, { key: KEY, body: { reason: 'enough' } });
      expect(cancel.body).toEqual({ success: true, error: null });
      const run = (await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run;
      expect(run).toMatchObject({ status: 'stopped', is_finished: true });
      const again = await http(url, 'POST', `/v1/agents/${agentId}/runs/${runId}/cancel`, { key: KEY });
      expect(again.status).toBe(200);
      expect(again.body.success).toBe(true);
      expect(typeof again.body.error).toBe('string');
      const events = (await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body.events;
      expect(events[events.length - 1].event).toEqual({ stopped: { reason: 'enough' } });
      expect((await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run.status).toBe('stopped');
    });

    it('a worker that picks up a run already under way ends it in error instead of replaying it', async () => {
      const url = slow.url();
      const agentId = (await http(url, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
      const runId = (await http(url, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } })).body.run.run_id;
      await eventually(
        'the first run event',
        async () => (await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run.event_count,
        (n) => n >= 1,
        10_000,
      );
      // What BullMQ does when the first worker stalls: the job is handed to another worker.
      await slow.others.runs!.get(RunExecutor).execute(runId);
      const run = (await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run;
      expect(run).toMatchObject({ status: 'error', is_finished: true });
      const events = (await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body.events;
      expect(events[events.length - 1].event.failed.error).toMatch(/interrupted/);
    });

    it('agent.deleted stops the agent’s running runs and deletes every run of it', async () => {
      const url = slow.url();
      const agentId = (await http(url, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
      for (let i = 0; i < 2; i++) await http(url, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } });
      expect((await http(url, 'DELETE', `/v1/agents/${agentId}`, { key: KEY })).status).toBe(204);
      const pg = new Client({ connectionString: slow.infra.databaseUrl });
      await pg.connect();
      try {
        await eventually(
          'the runs of the deleted agent gone',
          async () => (await pg.query('SELECT count(*)::int AS n FROM runs.runs WHERE agent_id = $1', [agentId])).rows[0].n,
          (n) => n === 0,
          10_000,
        );
        const events = await pg.query('SELECT count(*)::int AS n FROM runs.run_events e WHERE NOT EXISTS (SELECT 1 FROM runs.runs r WHERE r.id = e.run_id)');
        expect(events.rows[0].n).toBe(0);
      } finally {
        await pg.end();
      }
    });

    it('deletes a running run with its events', async () => {
      const url = slow.url();
      const agentId = (await http(url, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
      const runId = (await http(url, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } })).body.run.run_id;
      const del = await http(url, 'DELETE', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY });
      expect(del.status).toBe(204);
      expect(del.body).toBeUndefined();
      expectProblem(await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY }), 404);
      expectProblem(await http(url, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY }), 404);
      expectProblem(await http(url, 'DELETE', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY }), 404);
    });
  });

  it('answers 404 for unknown agents and runs, malformed ids and other users', async () => {
    const agentId = await newAgent();
    const runId = (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } })).body.run.run_id;
    const missing = '00000000-0000-4000-8000-000000000000';
    expectProblem(await http(base, 'GET', `/v1/agents/${missing}/runs`, { key: KEY }), 404);
    expectProblem(await http(base, 'POST', `/v1/agents/${missing}/runs`, { key: KEY, body: {} }), 404);
    expectProblem(await http(base, 'GET', `/v1/agents/not-a-uuid/runs`, { key: KEY }), 404);
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/runs/${missing}`, { key: KEY }), 404);
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/runs/x'--`, { key: KEY }), 404);
    expectProblem(await http(base, 'POST', `/v1/agents/${agentId}/runs/${missing}/cancel`, { key: KEY, body: {} }), 404);
    expectProblem(await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { run_mode: 'fly' } }), 400);

    const user = await system.agents[0].get(UsersService).createUser('runs-other@example.test');
    const other = await system.agents[0].get(ApiKeysService).create(user.id, 'k');
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: other.api_key }), 404);
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: other.api_key }), 404);
  });
});
