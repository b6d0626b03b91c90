import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startAgentRuntime } from '../apps/agent-runtime/src/agent-runtime.app';
import { FakeModelServer } from './support/fake-model-server';
import { http } from './support/http';
import { ModelAgents } from './support/model-agents';
import { TestSystem } from './support/test-system';

const KEY = 'agent-runtime-anthropic-key-0123456789';
const SECRET = 'agent-runtime-anthropic-secret-0123';
const MODEL_API_KEY = 'sk-ant-fake-key-do-not-leak-0123';
/** A model the provider knows (for an unknown one it warns that it guesses the output limit). */
const MODEL = 'claude-sonnet-4-5';
/** Credits per million tokens: this model's row, then everything else. */
const CREDIT_PRICES = [
  { model: 'claude-sonnet-*', input_per_million: 3000, output_per_million: 15000 },
  { model: '*', input_per_million: 1000, output_per_million: 1000 },
];

/**
 * MODEL_PROVIDER=anthropic through the whole system: @ai-sdk/anthropic talks to the fake model server's
 * Messages API (`POST /v1/messages`, JSON for a build run's forced tool call, SSE for runs), and the
 * usage it reads (input tokens from message_start, output tokens from message_delta) becomes the run's
 * usage and its credits by CREDIT_PRICES.
 */
describe('runs executed with MODEL_PROVIDER=anthropic, through the API', () => {
  let fake: FakeModelServer;
  let runtime: NestFastifyApplication;
  let system: TestSystem;
  let base: string;
  let agents: ModelAgents;
  let page: Server;
  let pageUrl: string;
  const agentIds: string[] = [];
  const deployed = async (label: string, content: string, planSteps: object[] = []) => {
    agentIds.push(await agents.deployed(label, content, planSteps));
    return agentIds.at(-1)!;
  };

  beforeAll(async () => {
    fake = await FakeModelServer.start();
    page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('Tides: high water at 06:12.'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/tides`;
    runtime = await startAgentRuntime({
      PORT: '0',
      LOG_LEVEL: 'silent',
      MODEL_PROVIDER: 'anthropic',
      MODEL_BASE_URL: fake.url,
      MODEL_NAME: MODEL,
      MODEL_API_KEY,
      MODEL_RETRIES: '2',
      AGENT_RUNTIME_SECRET: SECRET,
      HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const runtimeUrl = `http://127.0.0.1:${(runtime.getHttpServer().address() as AddressInfo).port}`;
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      runsEnv: { AGENT_RUNTIME_URL: runtimeUrl, AGENT_RUNTIME_SECRET: SECRET, RUN_TIMEOUT_MS: '20000', CREDIT_PRICES: JSON.stringify(CREDIT_PRICES) },
    });
    base = system.url();
    agents = new ModelAgents(base, KEY, fake);
  });

  afterAll(async () => {
    await system?.stop();
    await runtime?.close();
    await fake?.close();
    await new Promise((resolve) => page?.close(resolve));
  });

  it('a build run (a forced tool_use, answered as JSON) writes the agent; the request is the Messages API with the key in x-api-key', async () => {
    await deployed('tides', `Read ${pageUrl} and give the next high water.`, [{ title: 'Read the tides', description: `GET ${pageUrl}`, tools: ['http_request'] }]);
    const [request] = fake.requestsFor('[build tides]');
    expect(request.headers).toMatchObject({ 'x-api-key': MODEL_API_KEY, 'anthropic-version': '2023-06-01' });
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toMatchObject({ model: MODEL, tool_choice: { type: 'tool', name: 'write_agent' }, max_tokens: expect.any(Number) });
    expect(request.body.stream).toBeFalsy();
    expect(request.body.system).toEqual([expect.objectContaining({ type: 'text' })]);
    expect(request.body.tools.map((tool: any) => tool.name)).toEqual(['write_agent']);
    expect(request.body.tools[0].input_schema).toMatchObject({ type: 'object' });
  });

  it('a run streams a tool_use and a text answer; its usage events, usage and credits come from message_start and message_delta', async () => {
    const agentId = await deployed('tides-run', 'Answer with the next high water.');
    const marker = fake.script(
      '[anthropic-run]',
      { status: 429, headers: { 'retry-after': '0' } },
      { text: 'Reading the page.', toolCalls: [{ name: 'http_request', arguments: { method: 'GET', url: pageUrl } }], usage: { input: 400, output: 100 } },
      { text: 'High water at 06:12.', usage: { input: 600, output: 50 } },
    );
    const { run, events } = await agents.runToEnd(agentId, { user_message: `${marker} when is high water?` });
    expect(run.status).toBe('completed');
    expect(events.map((event) => Object.keys(event)[0])).toEqual([
      'started', 'title', 'step', 'message', 'tool_call', 'tool_result', 'usage', 'step', 'message', 'usage', 'completed',
    ]);
    expect(events[4].tool_call).toMatchObject({ tool: 'http_request', input: { method: 'GET', url: pageUrl } });
    expect(events[5].tool_result).toMatchObject({ is_error: false, output: expect.stringContaining('high water at 06:12') });
    expect(events.filter((event) => 'usage' in event).map((event) => event.usage)).toEqual([
      expect.objectContaining({ model: MODEL, input_tokens: 400, output_tokens: 100 }),
      expect.objectContaining({ model: MODEL, input_tokens: 600, output_tokens: 50 }),
    ]);
    expect(events.at(-1)).toEqual({ completed: { outcome: 'success', summary: 'High water at 06:12.' } });
    // 1,000 input tokens at 3,000 and 150 output tokens at 15,000 credits per million: 5.25, rounded up.
    expect(run).toMatchObject({ policy_model: MODEL, step_count: 2, usage: { input_tokens: 1000, output_tokens: 150, model_calls: 2 }, credits_consumed: 6 });

    const requests = fake.requestsFor(marker);
    expect(requests).toHaveLength(3); // the 429, retried, then two steps
    expect(requests[1].body).toMatchObject({ model: MODEL, stream: true });
    expect(requests[1].body.tools.map((tool: any) => tool.name)).toEqual(expect.arrayContaining(['http_request', 'ask_user']));
    // The tool's result went back as a tool_result block answering the tool_use's id.
    const toolUse = requests[2].body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((block: any) => block.type === 'tool_use');
    const toolResult = requests[2].body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : [])).find((block: any) => block.type === 'tool_result');
    expect(toolResult).toMatchObject({ tool_use_id: toolUse.id });
    expect(JSON.stringify(toolResult.content)).toContain('high water at 06:12');
  });

  it("a model that keeps answering 529 ends the run in error with Anthropic's message, after MODEL_RETRIES retries", async () => {
    const agentId = await deployed('tides-overloaded', 'Answer.');
    const marker = fake.script('[anthropic-overloaded]', {
      status: 529,
      headers: { 'retry-after-ms': '10' },
      body: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded, try later' } }),
    });
    const { run, events } = await agents.runToEnd(agentId, { user_message: marker });
    expect(run.status).toBe('error');
    expect(JSON.stringify(events.at(-1))).toMatch(/the model failed: .*Overloaded, try later/);
    expect(fake.requestsFor(marker)).toHaveLength(3);
  });

  it('no model key in any event or model request body', async () => {
    let events = 0;
    for (const agentId of agentIds) {
      const runs = JSON.stringify((await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY })).body);
      for (const [, runId] of runs.matchAll(/"run_id":"([0-9a-f-]{36})"/g)) {
        const body = JSON.stringify((await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body);
        expect(body).not.toContain(MODEL_API_KEY);
        events += 1;
      }
    }
    expect(events).toBeGreaterThanOrEqual(5);
    for (const request of fake.requests) expect(JSON.stringify(request.body)).not.toContain(MODEL_API_KEY);
  });
});
