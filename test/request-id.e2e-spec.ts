import { EventNames, QueueNames } from '@aas/contracts';
import { Job, Queue } from 'bullmq';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { TestSystem } from './support/test-system';
import { Receiver } from './support/webhook-receiver';

const KEY = 'request-id-bootstrap-key-0123456789';

/** The request id follows an API request through the transport, the outbox and every queued job it causes. */
describe('Request id in queued jobs', () => {
  let system: TestSystem;
  let base: string;
  let receiver: Receiver;
  let receiverUrl: string;
  const queues = new Map<string, Queue>();

  beforeAll(async () => {
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' },
      webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    base = system.url();
  });
  afterAll(async () => {
    await Promise.all([...queues.values()].map((q) => q.close()));
    await system.stop();
    await receiver.close();
  });

  const queue = (name: string): Queue => {
    if (!queues.has(name)) {
      queues.set(name, new Queue(name, { connection: { url: system.infra.redisUrl }, prefix: system.infra.redisPrefix }));
    }
    return queues.get(name)!;
  };
  /** The data and name of every job of a queue, whatever its state. */
  const jobsOf = async (name: string): Promise<Array<Pick<Job, 'name' | 'data'>>> =>
    (await queue(name).getJobs(['completed', 'active', 'waiting', 'delayed', 'failed'])).map(({ name, data }) => ({ name, data }));
  const executionJobOf = (runId: string) =>
    eventually(
      `the execution job of run ${runId}`,
      async () => (await jobsOf(QueueNames.RunsExecution)).find((j) => j.data.run_id === runId),
      Boolean,
    );
  const newAgent = async (): Promise<string> =>
    (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id as string;

  it('reaches the run execution job, its lifecycle events and the delivery jobs they make', async () => {
    const agentId = await newAgent();
    await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: KEY, body: { url: `${receiverUrl}/held`, events: ['run.started'] } });
    // The first answer asks for a retry in a minute, so the delivery job stays queued (delayed) to be read.
    receiver.answer = () => ({ status: 503, headers: { 'retry-after': '60' } });

    const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, {
      key: KEY,
      body: { skip_deploy_check: true },
      headers: { 'x-request-id': 'req-run-start-1' },
    });
    expect(started.status).toBe(201);
    const runId = started.body.run.run_id as string;

    const execution = await executionJobOf(runId);
    expect(execution!.data.request_id).toBe('req-run-start-1');

    const lifecycle = await eventually(
      'run.started and a later lifecycle event',
      async () => (await jobsOf(QueueNames.WebhooksEvents)).filter((j) => j.data.run_id === runId).map((j) => j.name),
      (names) => names.includes(EventNames.RunStarted) && names.some((n) => n !== EventNames.RunStarted),
    );
    const events = (await jobsOf(QueueNames.WebhooksEvents)).filter((j) => j.data.run_id === runId);
    expect(events.map((j) => j.data.request_id)).toEqual(lifecycle.map(() => 'req-run-start-1'));

    await eventually('the first delivery attempt', () => receiver.on('/held').length, (n) => n >= 1);
    const delivery = await eventually(
      'the delayed delivery job',
      async () => (await jobsOf(QueueNames.WebhookDeliveries))[0],
      Boolean,
    );
    expect(delivery!.data.request_id).toBe('req-run-start-1');
  });

  it('reaches the agent.deleted jobs of every service', async () => {
    const agentId = await newAgent();
    const deleted = await http(base, 'DELETE', `/v1/agents/${agentId}`, { key: KEY, headers: { 'x-request-id': 'req-delete-1' } });
    expect(deleted.status).toBe(204);

    for (const name of [QueueNames.RunsEvents, QueueNames.SchedulerEvents, QueueNames.WebhooksEvents]) {
      const job = await eventually(
        `agent.deleted on ${name}`,
        async () => (await jobsOf(name)).find((j) => j.name === EventNames.AgentDeleted && j.data.agent_id === agentId),
        Boolean,
      );
      expect({ queue: name, request_id: job!.data.request_id }).toEqual({ queue: name, request_id: 'req-delete-1' });
    }
  });

  it('carries the id the gateway made when the caller sent none', async () => {
    const agentId = await newAgent();
    const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } });
    const runId = started.body.run.run_id as string;
    const execution = await executionJobOf(runId);
    expect(execution!.data.request_id).toBe(started.headers.get('x-request-id'));
  });
});
