import { createHmac } from 'node:crypto';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { SseStream } from './support/sse';
import { TestRuntime, lines } from './support/test-runtime';
import { TestSystem, urlOf } from './support/test-system';
import { User, freshUser } from './support/test-users';

const KEY = 'runs-runtime-v2-bootstrap-key-0123456789';
const SECRET = 'runtime-v2-secret-0123456789abcdef';
/** 1 credit per 1,000 tokens of `big-*` models in, 3 out; everything else a tenth of that. */
const CREDIT_PRICES = JSON.stringify([
  { model: 'big-*', input_per_million: 1000, output_per_million: 3000 },
  { model: '*', input_per_million: 100, output_per_million: 300 },
]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Runtime protocol version 2: what the control plane records and serves', () => {
  let runtime: TestRuntime;
  let system: TestSystem;
  let base: string;
  let other: User;

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      runsEnv: { AGENT_RUNTIME_URL: runtime.url, AGENT_RUNTIME_SECRET: SECRET, CREDIT_PRICES, TOOL_CATALOGUE_CACHE_MS: '0', RUN_TIMEOUT_MS: '5000' },
    });
    base = system.url();
    other = await freshUser(system, 'rt-v2-other');
  });
  afterAll(async () => {
    await system?.stop();
    await runtime?.close();
  });

  const newAgent = async () => (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id as string;
  const getAgent = async (agentId: string) => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent;
  const getRun = async (agentId: string, runId: string) => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run;

  async function runToEnd(name: string, script: Parameters<TestRuntime['script']>[1], runMode: 'run' | 'build' = 'run') {
    const agentId = await newAgent();
    const start = await http(base, 'POST', `/v1/agents/${agentId}/runs`, {
      key: KEY,
      body: { user_message: runtime.script(name, script), skip_deploy_check: true, run_mode: runMode },
    });
    expect(start.status).toBe(201);
    const runId = start.body.run.run_id as string;
    const run = await eventually(`run ${runId} to finish`, () => getRun(agentId, runId), (r) => r.is_finished === true);
    return { agentId, runId, run };
  }

  describe('a run whose runtime sends version 2 lines', () => {
    const script = lines(
      { type: 'title', title: 'Morning digest of three pages' },
      { type: 'step', title: 'Read the pages' },
      { type: 'usage', model: 'big-1', input_tokens: 1500, output_tokens: 200 },
      { type: 'tool_call', call_id: 'c1', tool: 'http_request', input: { method: 'GET', url: 'https://news.example.test/today?x=1' } },
      { type: 'tool_result', call_id: 'c1', tool: 'http_request', output: '<html>…</html>', truncated: true, is_error: false },
      { type: 'tool_call', call_id: 'c2', tool: 'files.write', input: { path: 'digest.md' } },
      { type: 'tool_result', call_id: 'c2', tool: 'files.write', output: 'ok', truncated: false, is_error: false },
      { type: 'tool_call', call_id: 'c3', tool: 'http_request', input: { method: 'GET', url: 'https://other.example.test/' } },
      { type: 'tool_result', call_id: 'c3', tool: 'http_request', output: 'x', truncated: false, is_error: false },
      { type: 'step', title: 'Post the summary' },
      { type: 'usage', model: 'small-2', input_tokens: 2500, output_tokens: 100 },
      { type: 'message', text: 'Posted the digest.' },
      { type: 'completed', outcome: 'success', summary: 'Read 3 pages and posted a digest' },
    );
    let result: Awaited<ReturnType<typeof runToEnd>>;

    beforeAll(async () => {
      runtime.catalogue = (reply) =>
        reply.json(200, {
          tools: [
            { name: 'http_request', description: 'GET or POST', input_schema: { type: 'object' }, icon: 'globe', server: null },
            { name: 'files.write', description: 'Write a file', input_schema: { type: 'object' }, icon: 'file', server: 'files' },
          ],
        });
      result = await runToEnd('v2: full run', script);
    });
    afterAll(() => (runtime.catalogue = undefined));

    it('GET run shows its model, steps, usage and credits', () => {
      expect(result.run).toMatchObject({
        status: 'completed',
        step_count: 2,
        policy_model: 'small-2',
        usage: { input_tokens: 4000, output_tokens: 300, model_calls: 2 },
        // big-1: 1500 × 1000 + 200 × 3000 = 2.1 credits; small-2: 2500 × 100 + 100 × 300 = 0.28: 2.38, rounded up
        credits_consumed: 3,
      });
    });

    it("the run list's summary shows title, tools used, action count, summary, outcome, credits and usage", async () => {
      const list = await http(base, 'GET', `/v1/agents/${result.agentId}/runs`, { key: KEY });
      expect(list.status).toBe(200);
      expect(list.body.runs[0]).toMatchObject({ run_id: result.runId, credits_consumed: 3, usage: { input_tokens: 4000 } });
      expect(list.body.all_run_summaries[0]).toEqual(
        expect.objectContaining({
          run_id: result.runId,
          title: 'Morning digest of three pages',
          policy_model: 'small-2',
          tool_icons: [
            { action_type: 'http_request', favicon_url: 'https://news.example.test/favicon.ico', icon: 'globe' },
            { action_type: 'files.write', favicon_url: null, icon: 'file' },
          ],
          total_action_count: 3,
          summary: 'Read 3 pages and posted a digest',
          outcome: 'success',
          credits_consumed: 3,
          usage: { input_tokens: 4000, output_tokens: 300, model_calls: 2 },
        }),
      );
    });

    it('records every line as an event, in the stream too, and the agent shows the last message', async () => {
      const events = (await http(base, 'GET', `/v1/agents/${result.agentId}/runs/${result.runId}/events?limit=100`, { key: KEY })).body.events;
      expect(events.map((e: { event: object }) => Object.keys(e.event)[0])).toEqual([
        'started', 'title', 'step', 'usage', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'tool_call', 'tool_result', 'step', 'usage', 'message', 'completed',
      ]);
      expect(events[5].event).toEqual({ tool_result: { call_id: 'c1', tool: 'http_request', output: '<html>…</html>', truncated: true, is_error: false } });
      const stream = await SseStream.open(`${base}/v1/agents/${result.agentId}/runs/${result.runId}/events/stream`, { 'x-api-key': KEY });
      await stream.done;
      expect(stream.runEvents.map((e) => Object.keys(e.data.event)[0])).toContain('tool_call');
      expect(stream.runEvents[4].data.event).toEqual({ tool_call: { call_id: 'c1', tool: 'http_request', input: { method: 'GET', url: 'https://news.example.test/today?x=1' } } });
      await eventually('the last chat message', () => getAgent(result.agentId), (a) => a.last_chat_message === 'Posted the digest.');
    });
  });

  it("a build run's agent_name becomes the agent's name", async () => {
    const { agentId, run } = await runToEnd(
      'v2: build names the agent',
      lines(
        { type: 'agent_name', name: 'Morning digest', explanation: 'Reads three pages and posts a summary' },
        { type: 'instructions', content: 'Read the pages, then post.', plan_steps: [] },
        { type: 'completed', outcome: 'success', summary: 'Built' },
      ),
      'build',
    );
    expect(run.status).toBe('completed');
    const agent = await eventually('the agent name', () => getAgent(agentId), (a) => a.agent_name !== null);
    expect(agent.agent_name).toEqual({ name: 'Morning digest', explanation: 'Reads three pages and posts a summary' });
  });

  it('an agent_name line of a run that is not a build is recorded and names nothing', async () => {
    const { agentId, run } = await runToEnd(
      'v2: a plain run cannot rename',
      lines({ type: 'agent_name', name: 'Hijacked', explanation: null }, { type: 'completed', outcome: 'success' }),
    );
    expect(run.status).toBe('completed');
    await sleep(500);
    expect((await getAgent(agentId)).agent_name).toBeNull();
  });

  it.each([
    ['usage with fractional tokens', { type: 'usage', model: 'm', input_tokens: 1.5, output_tokens: 0 }, 'input_tokens'],
    ['a title past 500 characters', { type: 'title', title: 'x'.repeat(501) }, 'title'],
    ['an agent name past 200 characters', { type: 'agent_name', name: 'n'.repeat(201) }, 'name'],
  ])('a malformed line (%s) ends the run in error with the reason, and sets nothing', async (name, line, field) => {
    const { agentId, runId, run } = await runToEnd(`v2: malformed ${name}`, lines(line, { type: 'completed', outcome: 'success' }));
    expect(run).toMatchObject({ status: 'error', credits_consumed: null, usage: { input_tokens: 0, model_calls: 0 } });
    const events = (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body.events;
    expect(events.at(-1).event.failed.error).toMatch(new RegExp(`the runtime sent a ${line.type} line that breaks the protocol: .*${field}`));
    const list = await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY });
    expect(list.body.all_run_summaries[0].title).toBeNull();
  });

  it('a version 1 run keeps its fields as before: actions are its steps, no tools, no usage, no credits', async () => {
    const { agentId, run } = await runToEnd(
      'v1: steps only',
      lines({ type: 'step', title: 'a' }, { type: 'step', title: 'b' }, { type: 'completed', outcome: 'partial', summary: 's' }),
    );
    expect(run).toMatchObject({ status: 'completed', step_count: 2, policy_model: null, credits_consumed: null, usage: { input_tokens: 0, output_tokens: 0, model_calls: 0 } });
    const [summary] = (await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY })).body.all_run_summaries;
    expect(summary).toMatchObject({ tool_icons: [], total_action_count: 2, title: null, credits_consumed: null, outcome: 'partial', summary: 's' });
  });

  describe('PATCH /v1/agents/{agent_id}', () => {
    it('renames the agent, and GET shows it', async () => {
      const agentId = await newAgent();
      const res = await http(base, 'PATCH', `/v1/agents/${agentId}`, { key: KEY, body: { agent_name: { name: 'Invoices', explanation: 'Files invoices' } } });
      expect(res.status).toBe(200);
      expect(res.body.agent).toMatchObject({ agent_id: agentId, agent_name: { name: 'Invoices', explanation: 'Files invoices' } });
      const cleared = await http(base, 'PATCH', `/v1/agents/${agentId}`, { key: KEY, body: { agent_name: { name: 'Invoices 2' } } });
      expect(cleared.body.agent.agent_name).toEqual({ name: 'Invoices 2', explanation: null });
      expect((await getAgent(agentId)).agent_name).toEqual({ name: 'Invoices 2', explanation: null });
    });

    it.each([
      ['no agent_name', {}],
      ['agent_name not an object', { agent_name: 'x' }],
      ['an empty name', { agent_name: { name: '' } }],
      ['a name past 200 characters', { agent_name: { name: 'x'.repeat(201) } }],
      ['an explanation past 2000 characters', { agent_name: { name: 'x', explanation: 'y'.repeat(2001) } }],
      ['a name with NUL', { agent_name: { name: 'a\u0000b' } }],
      ['a name that is a number', { agent_name: { name: 5 } }],
    ])('refuses %s with a 400', async (_, body) => {
      const agentId = await newAgent();
      expectProblem(await http(base, 'PATCH', `/v1/agents/${agentId}`, { key: KEY, body }), 400);
      expect((await getAgent(agentId)).agent_name).toBeNull();
    });

    it("answers 404 for another user's agent, and leaves it as it was", async () => {
      const agentId = await newAgent();
      await http(base, 'PATCH', `/v1/agents/${agentId}`, { key: KEY, body: { agent_name: { name: 'Mine' } } });
      const res = await http(base, 'PATCH', `/v1/agents/${agentId}`, { key: other.key, body: { agent_name: { name: 'Theirs' } } });
      expectProblem(res, 404);
      expect((await getAgent(agentId)).agent_name).toEqual({ name: 'Mine', explanation: null });
      expectProblem(await http(base, 'PATCH', `/v1/agents/not-a-uuid`, { key: KEY, body: { agent_name: { name: 'x' } } }), 404);
    });
  });

  describe('GET /v1/tools', () => {
    afterEach(() => (runtime.catalogue = undefined));

    it("serves the runtime's catalogue, asked with a signed GET {AGENT_RUNTIME_URL}/tools; entries without the form of one are left out", async () => {
      const tool = { name: 'mcp.search', description: 'Search', input_schema: { type: 'object' }, icon: 'magnifier', server: 'mcp' };
      runtime.catalogue = (reply) => reply.json(200, { tools: [tool, { name: 42 }, { ...tool, name: 'x', secret: 'not ours' }] });
      const asked = runtime.catalogueRequests.length;
      const res = await http(base, 'GET', '/v1/tools', { key: KEY });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tools: [tool, { ...tool, name: 'x' }] });
      const request = runtime.catalogueRequests[asked];
      expect(request.path).toBe('/tools');
      expect(request.headers['x-service-signature']).toBe('sha256=' + createHmac('sha256', SECRET).update('', 'utf8').digest('hex'));
    });

    it('answers no tools for a version 1 runtime (404)', async () => {
      expect((await http(base, 'GET', '/v1/tools', { key: KEY })).body).toEqual({ tools: [] });
    });

    it('answers 503 when the runtime cannot be reached, fails or answers something that is not a catalogue', async () => {
      for (const answer of [(r: any) => r.destroy(), (r: any) => r.status(500), (r: any) => r.json(200, { tools: 'none' })]) {
        runtime.catalogue = answer;
        const res = await http(base, 'GET', '/v1/tools', { key: KEY });
        expectProblem(res, 503);
        expect(res.body.detail).toMatch(/tool catalogue is unavailable/);
      }
    });

    it('needs a key', async () => {
      expectProblem(await http(base, 'GET', '/v1/tools'), 401);
    });

    it("is rate-limited per user: one user's flood leaves another's answers alone", async () => {
      runtime.catalogue = (reply) => reply.json(200, { tools: [] });
      const gateway = await system.startGateway({ RATE_LIMIT_REQUESTS: '10' });
      try {
        const limited = urlOf(gateway);
        const [flooder, victim] = [await freshUser(system, 'rt-v2-flooder'), await freshUser(system, 'rt-v2-victim')];
        const flood = await Promise.all(Array.from({ length: 20 }, () => http(limited, 'GET', '/v1/tools', { key: flooder.key })));
        expect(flood.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(10);
        expectProblem(flood.find((r) => r.status === 429)!, 429);
        const mine = await http(limited, 'GET', '/v1/tools', { key: victim.key });
        expect([mine.status, mine.body]).toEqual([200, { tools: [] }]);
      } finally {
        await gateway.close();
      }
    });

    it('is the same for another user, who cannot change it for the first', async () => {
      runtime.catalogue = (reply) => reply.json(200, { tools: [] });
      const [mine, theirs] = await Promise.all([http(base, 'GET', '/v1/tools', { key: KEY }), http(base, 'GET', '/v1/tools', { key: other.key })]);
      expect([mine.status, theirs.status]).toEqual([200, 200]);
      expect(theirs.body).toEqual(mine.body);
    });
  });
});
