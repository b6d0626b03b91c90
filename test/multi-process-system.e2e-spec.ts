import { QueueNames } from '@aas/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { ProcessSystem } from './support/process-system';
import { Receiver, verifyWebhookSignatures } from './support/webhook-receiver';

const KEY = 'multi-process-bootstrap-key-0123456';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The production shape: every app as two operating-system processes (the
 * compiled dist/), requests spread over both gateways. Nothing may be handled
 * twice: no duplicate row, delivery or schedule fire.
 */
describe('The whole system with two processes of every app', () => {
  let system: ProcessSystem;
  let receiver: Receiver;
  let receiverUrl: string;
  let gateways: string[];
  let calls = 0;
  /** Alternates between the two gateways. */
  const call = (method: string, path: string, body?: unknown) =>
    http(gateways[calls++ % gateways.length], method, path, { key: KEY, body });

  beforeAll(async () => {
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    system = await ProcessSystem.start({
      replicas: { 'api-gateway': 2, 'agents-service': 2, 'runs-service': 2, 'scheduler-service': 2, 'webhook-delivery': 2 },
      env: { BOOTSTRAP_API_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', BUILTIN_RUNTIME_STEP_MS: '20' },
    });
    gateways = system.gatewayUrls();
    expect(gateways).toHaveLength(2);
  }, 180_000); // starting many processes on a busy 2-core machine can take a while
  afterAll(async () => {
    await system?.stop();
    await receiver?.close();
  });

  it('agents, workspaces and instructions: concurrent writes through both gateways make exactly one row each', async () => {
    const workspace = (await call('POST', '/v1/workspaces', { name: 'multi' })).body.workspace.workspace_id;
    const created = await Promise.all(
      Array.from({ length: 30 }, () => call('POST', '/v1/agents', { workspace_id: workspace })),
    );
    expect(created.map((r) => r.status)).toEqual(Array(30).fill(201));
    const ids = created.map((r) => r.body.agent.agent_id);
    expect(new Set(ids).size).toBe(30);

    const listed: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await call('GET', `/v1/agents?limit=7&workspace_id=${workspace}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      listed.push(...page.body.agents.map((a: { agent_id: string }) => a.agent_id));
      cursor = page.body.next_cursor ?? undefined;
    } while (cursor);
    expect(listed.sort()).toEqual([...ids].sort());

    const agentId = ids[0];
    const versions = await Promise.all(
      Array.from({ length: 6 }, (_, i) => call('PUT', `/v1/agents/${agentId}/instructions`, { content: `v${i}` })),
    );
    expect(versions.map((r) => r.status)).toEqual(Array(6).fill(200));
    const history = await call('GET', `/v1/agents/${agentId}/instructions/history`);
    expect(history.status).toBe(200);
    const contents = history.body.instruction_versions.map((v: { content: string }) => v.content).sort();
    expect(contents).toEqual(['v0', 'v1', 'v2', 'v3', 'v4', 'v5']);

    expect((await call('DELETE', `/v1/agents/${ids[1]}`)).status).toBe(204);
    for (const gateway of gateways) {
      expect((await http(gateway, 'GET', `/v1/agents/${ids[1]}`, { key: KEY })).status).toBe(404);
    }
  });

  it('a build run deploys the agent, and each lifecycle webhook arrives once, signed', async () => {
    const agentId = (await call('POST', '/v1/agents', {})).body.agent.agent_id;
    const hook = await call('POST', `/v1/agents/${agentId}/webhooks`, {
      url: `${receiverUrl}/run-${agentId}`,
      events: ['run.started', 'run.completed', 'run.failed', 'run.stopped', 'run.paused'],
    });
    expect(hook.status).toBe(201);
    const started = await call('POST', `/v1/agents/${agentId}/runs`, { run_mode: 'build' });
    expect(started.status).toBe(201);
    const runId = started.body.run.run_id;

    const run = await eventually(
      'the build run to finish',
      async () => (await call('GET', `/v1/agents/${agentId}/runs/${runId}`)).body.run,
      (r) => r.is_finished,
    );
    expect(run.status).toBe('completed');
    await eventually(
      'the agent to be deployed',
      async () => (await call('GET', `/v1/agents/${agentId}`)).body.agent.deployment_state,
      (state) => state === 'deployed',
    );

    const deliveries = await eventually('both deliveries', () => receiver.on(`/run-${agentId}`), (r) => r.length >= 2);
    await sleep(1000); // room for a duplicate to show up
    const events = receiver.on(`/run-${agentId}`).map((r) => JSON.parse(r.body).event);
    expect(events.sort()).toEqual(['run.completed', 'run.started']);
    for (const delivery of deliveries) verifyWebhookSignatures(hook.body.signing_secret, delivery);
  });

  it('a schedule on two scheduler processes fires once per fire time', async () => {
    const agentId = (await call('POST', '/v1/agents', {})).body.agent.agent_id;
    await call('POST', `/v1/agents/${agentId}/runs`, { run_mode: 'build' });
    await eventually(
      'the agent to be deployed',
      async () => (await call('GET', `/v1/agents/${agentId}`)).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    const put = await call('PUT', `/v1/agents/${agentId}/schedule`, { cron: '* * * * * ? *', overlap: 'allow' });
    expect(put.status).toBe(200);
    await sleep(6_000);
    expect((await call('POST', `/v1/agents/${agentId}/schedule/pause`)).body).toEqual({ success: true, error: null });
    await sleep(1_500);

    const runs = (await call('GET', `/v1/agents/${agentId}/runs?page_size=1000`)).body.runs.filter(
      (r: { run_kind: string }) => r.run_kind === 'schedule',
    );
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(runs.length).toBeLessThanOrEqual(8);
    const fireTimes = await fireTimesOf(agentId);
    expect(new Set(fireTimes).size).toBe(fireTimes.length);
    // A fire taken just before the pause is skipped once the schedule is paused, so a run per fire, at most.
    expect(runs.length).toBeLessThanOrEqual(fireTimes.length);
    expect(runs.length).toBeGreaterThanOrEqual(fireTimes.length - 1);
  });

  /** The fires on the scheduler's own queue: runs-service would absorb a double fire, so look before it. */
  async function fireTimesOf(agentId: string): Promise<string[]> {
    const connection = new Redis(system.infra.redisUrl, { maxRetriesPerRequest: null });
    const fires = new Queue(QueueNames.SchedulerFires, { connection, prefix: system.infra.redisPrefix });
    try {
      const jobs = await fires.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed']);
      return jobs.filter((j) => j.data.agent_id === agentId).map((j) => j.data.fire_time);
    } finally {
      await fires.close();
      connection.disconnect();
    }
  }
});
