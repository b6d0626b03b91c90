import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startAgentRuntime } from '../apps/agent-runtime/src/agent-runtime.app';
import { Webhook } from 'standardwebhooks';
import { eventually } from './support/eventually';
import { FakeModelServer } from './support/fake-model-server';
import { FixtureMcpServer } from './support/fixture-mcp-server';
import { http } from './support/http';
import { ModelAgents } from './support/model-agents';
import { RecordingProxy } from './support/recording-proxy';
import { SseStream } from './support/sse';
import { TestSystem } from './support/test-system';
import { freshUser } from './support/test-users';

const KEY = 'agent-runtime-system-key-0123456789';
const SECRET = 'agent-runtime-system-secret-0123';
const MODEL_API_KEY = 'sk-system-model-key-0123456789';
const MCP_TOKEN = 'Bearer mcp-system-token-0123456789';

/** The whole system with runs-service dispatching to apps/agent-runtime, which talks to a scripted model. */
describe('runs executed by the agent runtime app, through the API', () => {
  let fake: FakeModelServer;
  let runtime: NestFastifyApplication;
  let system: TestSystem;
  let base: string;
  let agents: ModelAgents;
  let page: Server;
  let pageUrl: string;
  let mcp: FixtureMcpServer;
  let dispatches: RecordingProxy;
  /** Answers of the page server held until the test lets them go, by path. */
  const held = new Map<string, () => void>();

  beforeAll(async () => {
    fake = await FakeModelServer.start();
    page = createServer((req, res) => {
      const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('Today: sunny, 21 degrees.');
      if (req.url?.startsWith('/held/')) held.set(req.url, answer);
      else answer();
    });
    mcp = await FixtureMcpServer.start(MCP_TOKEN);
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/weather`;
    runtime = await startAgentRuntime({
      PORT: '0',
      LOG_LEVEL: 'silent',
      MODEL_BASE_URL: fake.url,
      MODEL_NAME: 'fake-model',
      MODEL_API_KEY,
      AGENT_RUNTIME_SECRET: SECRET,
      HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
      MCP_SERVERS: JSON.stringify({ fixture: { url: mcp.url, headers: { authorization: MCP_TOKEN } } }),
    });
    // runs-service dispatches through a proxy that keeps every dispatch, to look for secrets in them.
    dispatches = await RecordingProxy.start(`http://127.0.0.1:${(runtime.getHttpServer().address() as AddressInfo).port}`);
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { AGENT_RUNTIME_URL: dispatches.url, AGENT_RUNTIME_SECRET: SECRET, RUN_TIMEOUT_MS: '20000' } });
    base = system.url();
    agents = new ModelAgents(base, KEY, fake);
  });

  afterAll(async () => {
    await system?.stop();
    await dispatches?.close();
    await runtime?.close();
    await mcp?.close();
    await fake?.close();
    await new Promise((resolve) => page?.close(resolve));
  });

  const runToEnd = (agentId: string, body: object) => agents.runToEnd(agentId, body);
  const deployedAgent = (label: string, content: string, plan_steps: object[] = []) => agents.deployed(label, content, plan_steps);

  it('a build run writes the agent, then a run executes its plan with http_request; every line is a recorded event', async () => {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id as string;
    const build = fake.script('[system-build]', {
      toolCalls: [
        {
          name: 'write_agent',
          arguments: {
            name: 'Weather reporter',
            explanation: 'Reads the weather page and reports it.',
            title: 'Weather reporter',
            content: `Read ${pageUrl} and report the weather in one sentence.`,
            plan_steps: [{ title: 'Read the weather', description: `GET ${pageUrl}`, tools: ['http_request'] }],
          },
        },
      ],
    });
    const built = await runToEnd(agentId, { run_mode: 'build', user_message: `${build} report the weather every morning` });
    expect(built.run.status).toBe('completed');
    expect(built.events.map((event) => Object.keys(event)[0])).toEqual(['started', 'title', 'agent_name', 'instructions', 'usage', 'completed']);
    expect(built.events[2]).toEqual({ agent_name: { name: 'Weather reporter', explanation: 'Reads the weather page and reports it.' } });
    expect(built.events[3].instructions.plan_steps).toEqual([{ title: 'Read the weather', description: `GET ${pageUrl}`, tools: ['http_request'], order: 0, icon: 'globe' }]);

    const agent = (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent;
    expect(agent).toMatchObject({ deployment_state: 'deployed', agent_name: { name: 'Weather reporter', explanation: 'Reads the weather page and reports it.' } });
    expect(built.run).toMatchObject({ policy_model: 'fake-model', credits_consumed: expect.any(Number) });

    // The instructions reach agents-service by event, shortly after the build run.
    await eventually('the written instructions', async () => (await http(base, 'GET', `/v1/agents/${agentId}/instructions`, { key: KEY })).body, (body) => JSON.stringify(body).includes('report the weather in one sentence'));

    const work = fake.script(
      '[system-run]',
      { toolCalls: [{ name: 'http_request', arguments: { method: 'GET', url: pageUrl } }] },
      { text: 'Sunny, 21 degrees.' },
    );
    const ran = await runToEnd(agentId, { user_message: `${work} what is the weather?` });
    expect(ran.run.status).toBe('completed');
    expect(ran.events.map((event) => Object.keys(event)[0])).toEqual([
      'started', 'title', 'step', 'tool_call', 'tool_result', 'usage', 'step', 'message', 'usage', 'completed',
    ]);
    expect(ran.events[4].tool_result).toMatchObject({ tool: 'http_request', is_error: false, output: expect.stringContaining('sunny, 21 degrees') });
    expect(ran.events.at(-1)).toEqual({ completed: { outcome: 'success', summary: 'Sunny, 21 degrees.' } });
    // What the agent did fills the contract's fields, on the run and in the run list.
    expect(ran.run).toMatchObject({ policy_model: 'fake-model', step_count: 2, usage: { model_calls: 2 } });
    expect(ran.run.credits_consumed).toBeGreaterThan(0);
    const listed = (await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY })).body;
    const summary = findRunSummary(listed, ran.run.run_id);
    expect(summary).toMatchObject({
      title: expect.any(String),
      summary: 'Sunny, 21 degrees.',
      outcome: 'success',
      total_action_count: 1,
      tool_icons: [expect.objectContaining({ action_type: 'http_request', icon: 'globe' })],
    });
    // The run's model call carried the instructions the build run wrote.
    expect(JSON.stringify(fake.requestsFor(work)[0].body.messages)).toContain('report the weather in one sentence');
    for (const events of [built.events, ran.events]) {
      expect(JSON.stringify(events)).not.toContain(MODEL_API_KEY);
      expect(JSON.stringify(events)).not.toContain(SECRET);
    }
  });

  const kindsOf = (events: Record<string, unknown>[]) => events.map((event) => Object.keys(event)[0]);

  it('a run executes a two-tool plan (an MCP tool, then http_request): its steps arrive over SSE while it runs', async () => {
    const heldUrl = `${pageUrl.replace('/weather', '')}/held/forecast`;
    const marker = '[two-tools]';
    const agentId = await deployedAgent('two tools', `${marker} Look the city up, then read ${heldUrl}.`, [
      { title: 'Look the city up', description: 'fixture lookup', tools: ['fixture.lookup'] },
      { title: 'Read the forecast', description: `GET ${heldUrl}`, tools: ['http_request'] },
    ]);
    fake.script(
      marker,
      { toolCalls: [{ name: 'fixture__lookup', arguments: { key: 'city' } }] },
      { toolCalls: [{ name: 'http_request', arguments: { method: 'GET', url: heldUrl } }] },
      { text: 'Sunny in the city.' },
    );
    const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { user_message: 'forecast please' } });
    expect(started.status).toBe(201);
    const runId = started.body.run.run_id as string;
    const stream = await SseStream.open(`${base}/v1/agents/${agentId}/runs/${runId}/events/stream`, { 'x-api-key': KEY });
    expect(stream.status).toBe(200);
    // The forecast page holds its answer: everything up to the http_request call must have arrived live.
    await stream.until('the http_request call, live', (s) => s.runEvents.some((e) => 'tool_call' in e.data.event && (e.data.event.tool_call as any).tool === 'http_request'));
    const live = stream.runEvents.map((e) => e.data.event);
    expect(kindsOf(live)).toEqual(['started', 'title', 'step', 'tool_call', 'tool_result', 'usage', 'step', 'tool_call']);
    expect(live[3]).toEqual({ tool_call: { call_id: expect.any(String), tool: 'fixture.lookup', input: { key: 'city' } } });
    expect(live[4].tool_result).toMatchObject({ tool: 'fixture.lookup', output: 'value of city', is_error: false });
    expect(stream.finished).toBe(false);
    expect((await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run.is_finished).toBe(false);

    await eventually('the held request', () => held.get('/held/forecast'), Boolean);
    held.get('/held/forecast')!();
    await stream.until('the end of the stream', (s) => s.finished);
    stream.close();
    const all = stream.runEvents.map((e) => e.data.event);
    expect(kindsOf(all)).toEqual([
      'started', 'title', 'step', 'tool_call', 'tool_result', 'usage', 'step', 'tool_call', 'tool_result', 'usage', 'step', 'message', 'usage', 'completed',
    ]);
    const run = (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run;
    expect(run).toMatchObject({ status: 'completed', step_count: 3, usage: { model_calls: 3 } });
    const summary = findRunSummary((await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY })).body, runId);
    expect(summary).toMatchObject({ summary: 'Sunny in the city.', total_action_count: 2 });
    expect((summary!.tool_icons as Array<{ icon: string }>).map((icon) => icon.icon).sort()).toEqual(['globe', 'plug']);
  });

  it('a scheduled run is told its fire time (scheduled_for), by a backfill', async () => {
    const marker = '[scheduled]';
    const agentId = await deployedAgent('scheduled', `${marker} Say the time you were scheduled for.`);
    fake.script(marker, { text: 'Done on time.' });
    expect((await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body: { cron: '0 0 * * * ? *' } })).status).toBe(200);
    const now = new Date();
    const backfill = await http(base, 'POST', `/v1/agents/${agentId}/schedule/backfill`, {
      key: KEY,
      body: { from: new Date(now.getTime() - 3_600_000).toISOString(), to: now.toISOString() },
    });
    expect(backfill.status).toBe(202);
    expect(backfill.body.runs).toHaveLength(1);
    const { fire_time: fireTime, run_id: runId } = backfill.body.runs[0];
    const run = await eventually('the scheduled run to finish', async () => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run, (r) => r.is_finished);
    expect(run).toMatchObject({ scheduled_for: fireTime, trigger_data: null });
    const dispatch = dispatches.requests.filter((request) => request.method === 'POST').map((request) => JSON.parse(request.body)).find((body) => body.run_id === runId);
    expect(dispatch).toMatchObject({ protocol_version: 3, scheduled_for: fireTime, trigger_kind: 'schedule' });
    const asked = fake.requestsFor(marker).map((request) => JSON.stringify(request.body.messages));
    expect(asked.some((text) => text.includes(`fired for ${fireTime}`))).toBe(true);
    const events = (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body.events.map((e: { event: object }) => e.event);
    expect(events[1]).toEqual({ title: { title: `Scheduled run for ${fireTime}` } });
  });

  it('a run started by an inbound webhook trigger gets its payload; no secret is in any dispatch, event or model request', async () => {
    const marker = '[triggered]';
    const agentId = await deployedAgent('triggered', `${marker} Handle the order you are given.`);
    fake.script(marker, { text: 'Order handled.' });
    const created = await http(base, 'POST', `/v1/agents/${agentId}/triggers`, { key: KEY, body: { kind: 'webhook', verification: 'standard_webhooks' } });
    expect(created.status).toBe(201);
    const { url, secret } = created.body as { url: string; secret: string };
    const token = url.split('/').at(-1)!;
    const body = JSON.stringify({ order: 'ord-7781', total: '19.90' });
    const at = new Date();
    const signature = new Webhook(secret).sign('msg_system_1', at, body);
    const called = await http(base, 'POST', new URL(url).pathname, {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'webhook-id': 'msg_system_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
    });
    expect(called.status).toBe(202);
    const runId = called.body.run_id as string;
    const run = await eventually('the triggered run to finish', async () => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run, (r) => r.is_finished);
    expect(run.status).toBe('completed');
    const dispatch = JSON.parse(dispatches.requests.find((request) => request.body.includes(runId))!.body);
    expect(dispatch.trigger).toMatchObject({ kind: 'webhook', payload: { order: 'ord-7781', total: '19.90' } });
    const asked = JSON.stringify(fake.requestsFor(marker).map((request) => request.body.messages));
    expect(asked).toContain('ord-7781');
    expect(asked).toContain('started by a webhook trigger');

    // Every dispatch, every event of every run of this file so far and every model request.
    const events: unknown[] = [];
    for (const agent of (await http(base, 'GET', '/v1/agents', { key: KEY })).body.agents as Array<{ agent_id: string }>) {
      for (const listed of (await http(base, 'GET', `/v1/agents/${agent.agent_id}/runs?page_size=100`, { key: KEY })).body.runs as Array<{ run_id: string }>) {
        events.push((await http(base, 'GET', `/v1/agents/${agent.agent_id}/runs/${listed.run_id}/events`, { key: KEY })).body);
      }
    }
    const seen = {
      dispatches: JSON.stringify(dispatches.requests.map((request) => request.body)),
      events: JSON.stringify(events),
      model: JSON.stringify(fake.requests.map((request) => request.body)),
    };
    expect(dispatches.requests.length).toBeGreaterThan(4);
    expect(events.length).toBeGreaterThan(4);
    for (const [where, text] of Object.entries(seen)) {
      for (const secretValue of [MODEL_API_KEY, SECRET, MCP_TOKEN, secret, secret.slice('whsec_'.length), signature, token]) {
        expect({ where, leaked: text.includes(secretValue) }).toEqual({ where, leaked: false });
      }
    }
    // The model key goes to the model, and only in its authorization header.
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${MODEL_API_KEY}`);
  });

  it('a run whose model calls ask_user waits holding nothing, is answered by API, and the model goes on with the answer', async () => {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id as string;
    const marker = fake.script(
      '[system-ask]',
      { toolCalls: [{ name: 'ask_user', arguments: { prompt: 'Which city?', schema: { type: 'string', enum: ['Paris', 'Oslo'] } } }] },
      { text: 'The weather in Oslo is mild.' },
    );
    const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { user_message: `${marker} report the weather`, skip_deploy_check: true } });
    const runId = started.body.run.run_id as string;
    const path = `/v1/agents/${agentId}/runs/${runId}/input-requests`;
    const listed = await eventually('the question', async () => (await http(base, 'GET', path, { key: KEY })).body, (b) => b.input_requests?.length === 1);
    const [request] = listed.input_requests;
    expect(request).toMatchObject({ status: 'pending', prompt: 'Which city?', schema: { type: 'string', enum: ['Paris', 'Oslo'] } });
    const bad = await http(base, 'POST', `${path}/${request.request_id}`, { key: KEY, body: { answer: 'Rome' } });
    expect([bad.status, bad.body.errors?.[0]?.field]).toEqual([400, 'answer']);
    expect((await http(base, 'POST', `${path}/${request.request_id}`, { key: KEY, body: { answer: 'Oslo' } })).status).toBe(200);
    const run = await agents.finished(agentId, runId);
    expect(run.status).toBe('completed');
    const events = await agents.events(agentId, runId);
    expect(events.map((event) => Object.keys(event)[0])).toEqual([
      'started', 'title', 'step', 'tool_call', 'usage', 'waiting_for_input', 'input_answered', 'tool_result', 'step', 'message', 'usage', 'completed',
    ]);
    expect(events.at(-1)).toEqual({ completed: { outcome: 'success', summary: 'The weather in Oslo is mild.' } });
    expect(JSON.stringify(fake.requestsFor(marker)[1].body.messages)).toContain('Oslo');
    expect(run.usage.model_calls).toBe(2);
  });

  it('GET /v1/tools lists http_request, ask_user and the MCP server\'s tools with their icons', async () => {
    const res = await http(base, 'GET', '/v1/tools', { key: KEY });
    expect(res.status).toBe(200);
    const byName = Object.fromEntries((res.body.tools as Array<{ name: string; icon: string; server: string | null }>).map((tool) => [tool.name, tool]));
    expect(Object.keys(byName).sort()).toEqual(['ask_user', 'fixture.broken', 'fixture.lookup', 'http_request']);
    expect(byName.http_request).toMatchObject({ icon: 'globe', server: null });
    expect(byName.ask_user).toMatchObject({ icon: 'message-circle-question', server: null });
    expect(byName['fixture.lookup']).toMatchObject({ icon: 'plug', server: 'fixture' });
  });

  it('a second user can neither see nor cancel the first one\'s run', async () => {
    const marker = '[private]';
    const agentId = await deployedAgent('private', `${marker} Wait for the model.`);
    fake.script(marker, { hang: true });
    const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: {} });
    expect(started).toMatchObject({ status: 201 });
    const runId = started.body.run.run_id as string;
    await eventually('the model call', () => fake.requestsFor(marker).length, (n) => n > 0);
    const mallory = await freshUser(system, 'mallory');
    const path = `/v1/agents/${agentId}/runs/${runId}`;
    for (const [method, suffix] of [['GET', ''], ['GET', '/events'], ['GET', '/events/stream'], ['POST', '/cancel']] as const) {
      const res = await http(base, method, path + suffix, { key: mallory.key, ...(method === 'POST' ? { body: {} } : {}) });
      expect({ call: `${method} ${suffix}`, status: res.status }).toEqual({ call: `${method} ${suffix}`, status: 404 });
    }
    expect((await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: mallory.key })).status).toBe(404);
    expect((await http(base, 'GET', path, { key: KEY })).body.run).toMatchObject({ status: 'in_progress', is_finished: false });
    expect((await http(base, 'POST', `${path}/cancel`, { key: KEY, body: {} })).status).toBe(200);
    await eventually('the run stopped', async () => (await http(base, 'GET', path, { key: KEY })).body.run.status, (status) => status === 'stopped', 2000);
  });
});

/** The RunSummary of one run in a run list answer, wherever the list keeps it. */
function findRunSummary(body: unknown, runId: string): Record<string, unknown> | undefined {
  if (Array.isArray(body)) return body.map((item) => findRunSummary(item, runId)).find(Boolean);
  if (body === null || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  if (record.run_id === runId && 'tool_icons' in record) return record;
  return Object.values(record).map((value) => findRunSummary(value, runId)).find(Boolean);
}
