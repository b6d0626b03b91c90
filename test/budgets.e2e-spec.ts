import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { TestRuntime, hang, lines } from './support/test-runtime';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';
import { Receiver } from './support/webhook-receiver';

/** One credit per input token, output free: a usage line of n input tokens spends n credits. */
const CREDIT_PRICES = JSON.stringify([{ model: '*', input_per_million: 1_000_000, output_per_million: 0 }]);
const usage = (credits: number) => ({ type: 'usage', model: 'm-1', input_tokens: credits, output_tokens: 7 });

/** Spending budgets per agent and per user, per UTC day and month (docs/budgets.md). */
describe('Budgets', () => {
  let runtime: TestRuntime;
  let receiver: Receiver;
  let receiverUrl: string;
  let system: TestSystem;
  let base: string;
  let alice: User;
  let bob: User;
  let carol: User;

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    runtime.handler = lines({ type: 'completed', outcome: 'success' });
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    system = await TestSystem.start({
      runsEnv: { AGENT_RUNTIME_URL: runtime.url, AGENT_RUNTIME_SECRET: 'budgets-runtime-secret-0123456789', CREDIT_PRICES, RUN_TIMEOUT_MS: '10000' },
      webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    base = system.url();
    [alice, bob, carol] = [await freshUser(system, 'alice'), await freshUser(system, 'bob'), await freshUser(system, 'carol')];
  });
  afterAll(async () => {
    await system?.stop();
    await runtime?.close();
    await receiver?.close();
  });

  const newAgent = async (user: User) => (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id as string;
  const start = (user: User, agentId: string, userMessage?: string) =>
    http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { skip_deploy_check: true, ...(userMessage ? { user_message: userMessage } : {}) } });
  const finished = (user: User, agentId: string, runId: string) =>
    eventually(
      `run ${runId} to finish`,
      async () => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: user.key })).body.run,
      (run) => run?.is_finished === true,
    );
  async function runToEnd(user: User, agentId: string, userMessage?: string) {
    const started = await start(user, agentId, userMessage);
    expect(started.status).toBe(201);
    return finished(user, agentId, started.body.run.run_id);
  }
  /** A run's summary as the run list shows it (run.failed carries the same). */
  const summaryOf = async (user: User, agentId: string, runId: string) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: user.key })).body.all_run_summaries.find((r: { run_id: string }) => r.run_id === runId)?.summary;
  const agentBudget = (user: User, agentId: string) => http(base, 'GET', `/v1/agents/${agentId}/budget`, { key: user.key });
  const setAgentBudget = (user: User, agentId: string, body: object) => http(base, 'PUT', `/v1/agents/${agentId}/budget`, { key: user.key, body });

  describe("an agent's budget", () => {
    let agentId: string;
    let runId: string;

    beforeAll(async () => {
      agentId = await newAgent(alice);
      const set = await setAgentBudget(alice, agentId, { daily_credits: 100 });
      expect(set.status).toBe(200);
      expect(set.body.budget).toMatchObject({ agent_id: agentId, daily_credits: 100, monthly_credits: null, spent_today_credits: 0, spent_this_month_credits: 0 });
      const hook = await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: alice.key, body: { url: `${receiverUrl}/failed`, events: ['run.failed'] } });
      expect(hook.status).toBe(201);
      // 60 + 45 = 105 > 100: the second usage line crosses; the stream would go on until it is closed.
      const message = runtime.script('agent budget: crossing', hang(usage(60), { type: 'step', title: 'more' }, 20, usage(45), { type: 'step', title: 'after the budget' }));
      const started = await start(alice, agentId, message);
      expect(started.status).toBe(201);
      runId = started.body.run.run_id;
    });

    it('stops a run mid-way: error (run.failed), the budget named, the usage recorded, the runtime stream aborted', async () => {
      const run = await finished(alice, agentId, runId);
      expect(run).toMatchObject({ status: 'error', credits_consumed: 105, usage: { input_tokens: 105, model_calls: 2 } });
      expect(await summaryOf(alice, agentId, runId)).toBe("the agent's daily budget of 100 credits is spent (105) (quota agent_daily_credits)");
      await runtime.connectionClosed(runId);
      const events = (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: alice.key })).body.events;
      expect(events.map((e: { event: object }) => Object.keys(e.event)[0])).toEqual(['started', 'usage', 'step', 'failed']);
      expect(events[3].event.failed.error).toMatch(/agent's daily budget of 100 credits is spent \(105\)/);
      const [delivery] = await eventually('the run.failed delivery', async () => receiver.on('/failed'), (r) => r.length >= 1, 10_000);
      expect(JSON.parse(delivery.body)).toMatchObject({ event: 'run.failed', data: { run_id: runId, agent_id: agentId, status: 'error' } });
    });

    it('shows the spend of the day and month', async () => {
      const read = await agentBudget(alice, agentId);
      expect(read.status).toBe(200);
      const today = new Date().toISOString().slice(0, 10);
      expect(read.body.budget).toEqual({
        agent_id: agentId,
        daily_credits: 100,
        monthly_credits: null,
        spent_today_credits: 105,
        spent_this_month_credits: 105,
        day_started_at: `${today}T00:00:00.000Z`,
        month_started_at: `${today.slice(0, 8)}01T00:00:00.000Z`,
      });
    });

    it('refuses a start of that agent with 422 quota-exceeded naming the budget; another agent of the user still starts', async () => {
      const refused = await start(alice, agentId);
      expectProblem(refused, 422);
      expect(refused.body).toMatchObject({ quota: 'agent_daily_credits', limit: 100 });
      expect(refused.body.detail).toMatch(/agent's daily budget of 100 credits is spent \(105 this UTC day/);
      const other = await runToEnd(alice, await newAgent(alice));
      expect(other.status).toBe('completed');
    });

    it('starts again once the budget is raised above the spend, and a monthly budget binds the same way', async () => {
      expect((await setAgentBudget(alice, agentId, { daily_credits: 200 })).status).toBe(200);
      expect((await runToEnd(alice, agentId)).status).toBe('completed');
      const monthly = await setAgentBudget(alice, agentId, { daily_credits: null, monthly_credits: 105 });
      expect(monthly.body.budget).toMatchObject({ daily_credits: null, monthly_credits: 105, spent_this_month_credits: 105 });
      expect((await start(alice, agentId)).body).toMatchObject({ status: 422, quota: 'agent_monthly_credits', limit: 105 });
    });
  });

  describe("a user's budget", () => {
    let first: string;
    let second: string;

    beforeAll(async () => {
      const set = await http(base, 'PUT', '/v1/budgets', { key: carol.key, body: { daily_credits: 50 } });
      expect(set.status).toBe(200);
      expect(set.body.budget).toMatchObject({ daily_credits: 50, monthly_credits: null, spent_today_credits: 0 });
      expect(set.body.budget).not.toHaveProperty('agent_id');
      [first, second] = [await newAgent(carol), await newAgent(carol)];
    });

    it('counts the spend of all the user’s agents and stops the run that crosses it', async () => {
      const within = await runToEnd(carol, first, runtime.script('user budget: 30', lines(usage(30), { type: 'completed', outcome: 'success' })));
      expect(within).toMatchObject({ status: 'completed', credits_consumed: 30 });
      const crossing = await runToEnd(carol, second, runtime.script('user budget: 30 more', lines(usage(30), 50, { type: 'completed', outcome: 'success' })));
      expect(crossing).toMatchObject({ status: 'error', credits_consumed: 30 });
      expect(await summaryOf(carol, second, crossing.run_id)).toMatch(/^the user's daily budget of 50 credits is spent \(60\)/);
    });

    it('refuses starts of every agent of the user, new ones included, naming the budget', async () => {
      for (const agentId of [first, second, await newAgent(carol)]) {
        const refused = await start(carol, agentId);
        expectProblem(refused, 422);
        expect(refused.body).toMatchObject({ quota: 'user_daily_credits', limit: 50 });
      }
    });

    it("shows the user's spend, and each agent's own", async () => {
      const read = await http(base, 'GET', '/v1/budgets', { key: carol.key });
      expect(read.body.budget).toMatchObject({ daily_credits: 50, spent_today_credits: 60, spent_this_month_credits: 60 });
      expect((await agentBudget(carol, first)).body.budget).toMatchObject({ daily_credits: null, spent_today_credits: 30 });
    });

    it('binds an event trigger too: the refused start is the trigger’s last error', async () => {
      // Budgets off while the agents are built, then back on: the source's run starts, the trigger's is refused.
      await http(base, 'PUT', '/v1/budgets', { key: carol.key, body: {} });
      const [source, target] = [await newAgent(carol), await newAgent(carol)];
      for (const agentId of [source, target]) {
        await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: carol.key, body: { run_mode: 'build' } });
      }
      await eventually('both built', async () => Promise.all([source, target].map(async (a) => (await http(base, 'GET', `/v1/agents/${a}`, { key: carol.key })).body.agent.deployment_state)), (s) => s.every((x) => x === 'deployed'));
      const created = await http(base, 'POST', `/v1/agents/${target}/triggers`, { key: carol.key, body: { kind: 'event', source_agent_id: source, events: ['run.completed'] } });
      expect(created.status).toBe(201);
      expect((await setAgentBudget(carol, target, { daily_credits: 1 })).status).toBe(200);
      // The target spends its budget, then the source's run ends and the trigger tries to start the target.
      expect((await runToEnd(carol, target, runtime.script('trigger target spends', lines(usage(2), 50, { type: 'completed', outcome: 'success' })))).status).toBe('error');
      expect((await http(base, 'POST', `/v1/agents/${source}/runs`, { key: carol.key, body: {} })).status).toBe(201);
      const trigger = await eventually(
        'the trigger refused',
        async () => (await http(base, 'GET', `/v1/agents/${target}/triggers/${created.body.trigger_id}`, { key: carol.key })).body,
        (t) => t.last_error !== null,
      );
      expect(trigger.last_error).toMatch(/agent_daily_credits/);
    });
  });

  describe('another user', () => {
    it("can neither read nor set a user's agent budget (404), and sets only their own", async () => {
      const agentId = await newAgent(alice);
      expect((await setAgentBudget(alice, agentId, { daily_credits: 5 })).status).toBe(200);
      expectProblem(await agentBudget(bob, agentId), 404);
      expectProblem(await setAgentBudget(bob, agentId, { daily_credits: 1_000_000 }), 404);
      expectProblem(await agentBudget(bob, 'not-a-uuid'), 404);
      expect((await agentBudget(alice, agentId)).body.budget).toMatchObject({ daily_credits: 5 });
      const own = await http(base, 'GET', '/v1/budgets', { key: bob.key });
      expect(own.body.budget).toMatchObject({ daily_credits: null, monthly_credits: null, spent_today_credits: 0 });
    });

    it('runs unaffected by the budgets the others spent', async () => {
      const run = await runToEnd(bob, await newAgent(bob), runtime.script('bob spends', lines(usage(500), { type: 'completed', outcome: 'success' })));
      expect(run).toMatchObject({ status: 'completed', credits_consumed: 500 });
      expect((await http(base, 'GET', '/v1/budgets', { key: bob.key })).body.budget).toMatchObject({ spent_today_credits: 500 });
    });
  });

  it('never binds on a runtime that reports no usage', async () => {
    const agentId = await newAgent(bob);
    expect((await setAgentBudget(bob, agentId, { daily_credits: 1, monthly_credits: 1 })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await runToEnd(bob, agentId)).status).toBe('completed');
    expect((await agentBudget(bob, agentId)).body.budget).toMatchObject({ spent_today_credits: 0, spent_this_month_credits: 0 });
  });

  it.each([
    ['a negative budget', { daily_credits: -1 }],
    ['zero', { monthly_credits: 0 }],
    ['a fraction', { daily_credits: 1.5 }],
    ['a string', { daily_credits: '10' }],
    ['more than an int32', { monthly_credits: 2_147_483_648 }],
    ['an unknown field', { weekly_credits: 10 }],
  ])('refuses %s with 400 Problem Details', async (_name, body) => {
    expectProblem(await http(base, 'PUT', '/v1/budgets', { key: alice.key, body }), 400);
  });
});
