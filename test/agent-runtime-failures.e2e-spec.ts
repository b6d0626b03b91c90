import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { startAgentRuntime } from '../apps/agent-runtime/src/agent-runtime.app';
import { eventually } from './support/eventually';
import { FakeModelServer } from './support/fake-model-server';
import { http } from './support/http';
import { ModelAgents } from './support/model-agents';
import { TestSystem } from './support/test-system';
import { Receiver } from './support/webhook-receiver';

const KEY = 'agent-runtime-failures-key-0123456789';
const SECRET = 'agent-runtime-failures-secret-0123';
const RUN_TIMEOUT_MS = 5000;

/**
 * How runs executed by apps/agent-runtime end when the model fails, hangs or is cut short, through the API:
 * the run's status, its last event and the fake model's view of its requests (docs/runtime.md, Failures).
 */
describe('agent runtime runs that end badly, through the API', () => {
  let fake: FakeModelServer;
  let runtime: NestFastifyApplication;
  let system: TestSystem;
  let base: string;
  let agents: ModelAgents;
  let page: Server;
  let pageUrl: string;
  let agentId: string;
  let receiver: Receiver;

  beforeAll(async () => {
    fake = await FakeModelServer.start();
    receiver = new Receiver();
    const receiverUrl = await receiver.start();
    page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(page.address() as AddressInfo).port}/`;
    runtime = await startAgentRuntime({
      PORT: '0',
      LOG_LEVEL: 'silent',
      MODEL_BASE_URL: fake.url,
      MODEL_NAME: 'fake-model',
      AGENT_RUNTIME_SECRET: SECRET,
      HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
      AGENT_MAX_STEPS: '3',
      AGENT_MAX_TOKENS: '1000',
      MODEL_RETRIES: '3',
    });
    const runtimeUrl = `http://127.0.0.1:${(runtime.getHttpServer().address() as AddressInfo).port}`;
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      runsEnv: { AGENT_RUNTIME_URL: runtimeUrl, AGENT_RUNTIME_SECRET: SECRET, RUN_TIMEOUT_MS: String(RUN_TIMEOUT_MS) },
      webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    base = system.url();
    agents = new ModelAgents(base, KEY, fake);
    // One agent whose instructions carry no marker: each run's user_message picks its script.
    agentId = await agents.deployed('failing', 'Do what the message says.');
    const subscribed = await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: KEY, body: { url: `${receiverUrl}/failed`, events: ['run.failed'] } });
    expect(subscribed.status).toBe(201);
  });

  afterAll(async () => {
    await system?.stop();
    await runtime?.close();
    await fake?.close();
    await new Promise((resolve) => page?.close(resolve));
    await receiver?.close();
  });

  /** The run.failed notification of a run, as the subscribed webhook received it. */
  const runFailedDelivery = (runId: string) =>
    eventually(
      `run.failed of ${runId}`,
      () => receiver.on('/failed').map((received) => JSON.parse(received.body)).find((body) => body.data?.run_id === runId),
      Boolean,
      5000,
    );

  const failedWith = (events: Record<string, any>[]) => events.at(-1)?.failed?.error as string | undefined;

  it('a model that keeps answering 500 ends the run in error with the model\'s failure, after MODEL_RETRIES retries', async () => {
    const marker = fake.script('[500]', { status: 500, headers: { 'retry-after': '0' } });
    const { run, events } = await agents.runToEnd(agentId, { user_message: `${marker} go` });
    expect(run.status).toBe('error');
    expect(failedWith(events)).toMatch(/^the model failed: .*scripted 500/);
    expect(fake.requestsFor(marker)).toHaveLength(4);
  });

  it('a 429 storm is retried (Retry-After honoured) and the run completes', async () => {
    const tooMany = { status: 429, headers: { 'retry-after': '0' } };
    const marker = fake.script('[429]', tooMany, tooMany, tooMany, { text: 'made it' });
    const { run, events } = await agents.runToEnd(agentId, { user_message: `${marker} go` });
    expect(run.status).toBe('completed');
    expect(events.at(-1)).toEqual({ completed: { outcome: 'success', summary: 'made it' } });
    expect(fake.requestsFor(marker)).toHaveLength(4);
    expect(run.usage).toMatchObject({ model_calls: 1 });
  });

  it('a model that hangs: the run ends in error at its deadline, and the model request is closed', async () => {
    const marker = fake.script('[hang]', { hang: true });
    const started = Date.now();
    const { run, events } = await agents.runToEnd(agentId, { user_message: `${marker} go` });
    expect(run.status).toBe('error');
    expect(failedWith(events)).toMatch(/^deadline \(deadline_at \S+\) passed before the run finished$/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(RUN_TIMEOUT_MS - 1000);
    await fake.closedEarly(marker, 1000);
  });

  it('a cancel through the API mid model call: stopped within a second, and the model request closed', async () => {
    const marker = fake.script('[cancel]', { hang: true });
    const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { user_message: `${marker} go` } });
    const runId = started.body.run.run_id as string;
    await eventually('the model call', () => fake.requestsFor(marker).length, (n) => n > 0, 5000, 20);
    const cancelledAt = Date.now();
    const cancel = await http(base, 'POST', `/v1/agents/${agentId}/runs/${runId}/cancel`, { key: KEY, body: { reason: 'enough' } });
    expect(cancel.body).toEqual({ success: true, error: null });
    const run = await eventually('stopped', async () => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run, (r) => r.status === 'stopped', 1000, 20);
    expect(Date.now() - cancelledAt).toBeLessThan(1000);
    expect(run.is_finished).toBe(true);
    await fake.closedEarly(marker, 1000);
    expect(fake.requestsFor(marker)).toHaveLength(1);
  });

  it('a run over its step limit ends in error naming AGENT_MAX_STEPS', async () => {
    const marker = fake.script('[steps]', { toolCalls: [{ name: 'http_request', arguments: { method: 'GET', url: pageUrl } }] });
    const { run, events } = await agents.runToEnd(agentId, { user_message: `${marker} go` });
    expect(run).toMatchObject({ status: 'error', step_count: 3 });
    expect(failedWith(events)).toMatch(/^step limit \(AGENT_MAX_STEPS=3\) reached/);
    expect(fake.requestsFor(marker)).toHaveLength(3);
    expect(await runFailedDelivery(run.run_id)).toMatchObject({ event: 'run.failed', data: { status: 'error' } });
  });

  it('a run over its token limit ends in error naming AGENT_MAX_TOKENS', async () => {
    const marker = fake.script('[tokens]', { toolCalls: [{ name: 'http_request', arguments: { method: 'GET', url: pageUrl } }], usage: { input: 900, output: 200 } });
    const { run, events } = await agents.runToEnd(agentId, { user_message: `${marker} go` });
    expect(run.status).toBe('error');
    expect(failedWith(events)).toBe('token limit (AGENT_MAX_TOKENS=1000) reached: the run used 1100 tokens');
    expect(run.usage).toMatchObject({ input_tokens: 900, output_tokens: 200 });
    expect(fake.requestsFor(marker)).toHaveLength(1);
    expect(await runFailedDelivery(run.run_id)).toMatchObject({ event: 'run.failed', data: { status: 'error' } });
  });
});
