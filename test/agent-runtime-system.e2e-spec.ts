import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startAgentRuntime } from '../apps/agent-runtime/src/agent-runtime.app';
import { eventually } from './support/eventually';
import { FakeModelServer } from './support/fake-model-server';
import { http } from './support/http';
import { TestSystem } from './support/test-system';

const KEY = 'agent-runtime-system-key-0123456789';
const SECRET = 'agent-runtime-system-secret-0123';
const MODEL_API_KEY = 'sk-system-model-key-0123456789';

/** The whole system with runs-service dispatching to apps/agent-runtime, which talks to a scripted model. */
describe('runs executed by the agent runtime app, through the API', () => {
  let fake: FakeModelServer;
  let runtime: NestFastifyApplication;
  let system: TestSystem;
  let base: string;
  let page: Server;
  let pageUrl: string;

  beforeAll(async () => {
    fake = await FakeModelServer.start();
    page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('Today: sunny, 21 degrees.'));
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
    });
    const runtimeUrl = `http://127.0.0.1:${(runtime.getHttpServer().address() as AddressInfo).port}`;
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { AGENT_RUNTIME_URL: runtimeUrl, AGENT_RUNTIME_SECRET: SECRET, RUN_TIMEOUT_MS: '20000' } });
    base = system.url();
  });

  afterAll(async () => {
    await system?.stop();
    await runtime?.close();
    await fake?.close();
    await new Promise((resolve) => page?.close(resolve));
  });

  async function runToEnd(agentId: string, body: object): Promise<{ run: any; events: Record<string, any>[] }> {
    const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body });
    expect(started.status).toBe(201);
    const runId = started.body.run.run_id;
    const run = await eventually(`run ${runId} to finish`, async () => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run, (r) => r.is_finished === true);
    const events = (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body.events.map((e: { event: object }) => e.event);
    return { run, events };
  }

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
});

/** The RunSummary of one run in a run list answer, wherever the list keeps it. */
function findRunSummary(body: unknown, runId: string): Record<string, unknown> | undefined {
  if (Array.isArray(body)) return body.map((item) => findRunSummary(item, runId)).find(Boolean);
  if (body === null || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  if (record.run_id === runId && 'tool_icons' in record) return record;
  return Object.values(record).map((value) => findRunSummary(value, runId)).find(Boolean);
}
