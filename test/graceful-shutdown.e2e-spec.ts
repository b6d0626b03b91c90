/** @run-alone it counts what a worker sends between SIGTERM and its exit: a test file beside it slows that stop. */
import { Client } from 'pg';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { ProcessSystem } from './support/process-system';
import { hang, lines, TestRuntime } from './support/test-runtime';
import { Receiver } from './support/webhook-receiver';

const KEY = 'graceful-shutdown-bootstrap-key-01234';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SIGTERM to each app, as Kubernetes sends it before a pod goes: the process
 * stops taking work, finishes or hands back what it holds, and exits 0 in time.
 */
describe('Graceful shutdown on SIGTERM', () => {
  let system: ProcessSystem;
  let runtime: TestRuntime;
  let receiver: Receiver;
  let receiverUrl: string;
  let pg: Client;

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    receiver = new Receiver(1000);
    receiverUrl = `${await receiver.start()}/hook`;
    system = await ProcessSystem.start({
      replicas: { 'webhook-delivery': 0 },
      env: { BOOTSTRAP_API_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      appEnv: {
        'runs-service': {
          AGENT_RUNTIME_URL: runtime.url,
          AGENT_RUNTIME_SECRET: 'graceful-shutdown-runtime-secret',
          SHUTDOWN_DRAIN_MS: '1000',
        },
      },
    });
    pg = new Client({ connectionString: system.infra.databaseUrl });
    await pg.connect();
  }, 180_000); // starting many processes on a busy 2-core machine can take a while
  afterAll(async () => {
    await pg?.end();
    await system?.stop();
    await receiver?.close();
    await runtime?.close();
  });

  const base = () => system.gatewayUrls()[0];
  const newAgent = async () => (await http(base(), 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id as string;
  const startRun = async (agentId: string, userMessage: string) => {
    const res = await http(base(), 'POST', `/v1/agents/${agentId}/runs`, {
      key: KEY,
      body: { user_message: userMessage, skip_deploy_check: true },
    });
    expect(res.status).toBe(201);
    return res.body.run.run_id as string;
  };

  it('a webhook worker finishes the deliveries it holds, leaves the rest queued, and none is sent twice', async () => {
    const agentId = await newAgent();
    runtime.script('quick', lines({ type: 'completed', outcome: 'success' }));
    // One worker taking 5 deliveries at a time, each held 1 s by the receiver (all to one webhook: its limit raised to 5).
    const first = await system.spawn('webhook-delivery', { WEBHOOK_WORKER_CONCURRENCY: '5', WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '5' });
    await system.waitHealthy(first);
    const created = await http(base(), 'POST', `/v1/agents/${agentId}/webhooks`, {
      key: KEY,
      body: { url: receiverUrl, events: ['run.started'] },
    });
    expect(created.status).toBe(201);
    const RUNS = 20;
    for (let i = 0; i < RUNS; i++) await startRun(agentId, 'quick');

    await eventually('deliveries in flight', () => receiver.inFlight, (n) => n >= 5);
    const inFlightAtSigterm = receiver.inFlight;
    const exit = await system.stopProcess(first, 'SIGTERM');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(10_000);
    // Everything it held was answered and recorded before it exited; the rest was left queued.
    expect(receiver.received.length).toBeGreaterThanOrEqual(inFlightAtSigterm);
    expect(receiver.received.length).toBeLessThan(RUNS);
    const afterFirst = new Set(receiver.deliveryIds());
    const { rows: recorded } = await pg.query(`SELECT id FROM webhooks.deliveries WHERE status = 'succeeded'`);
    expect(new Set(recorded.map((r) => r.id))).toEqual(afterFirst);

    const second = await system.spawn('webhook-delivery');
    await system.waitHealthy(second);
    const rows = await eventually(
      'every delivery to succeed',
      async () => (await pg.query(`SELECT id, status FROM webhooks.deliveries`)).rows,
      (r) => r.length === RUNS && r.every((row) => row.status === 'succeeded'),
    );
    expect(receiver.deliveryIds()).toHaveLength(RUNS);
    expect(new Set(receiver.deliveryIds())).toEqual(new Set(rows.map((r) => r.id)));
  });

  it('runs-service ends a run it still executes after SHUTDOWN_DRAIN_MS in error, and exits', async () => {
    const agentId = await newAgent();
    runtime.script('endless', hang({ type: 'step', title: 'working' }));
    const runId = await startRun(agentId, 'endless');
    await eventually('the run to be dispatched', () => runtime.dispatchesFor(runId).length, (n) => n === 1);

    const [runs] = system.of('runs-service');
    const exit = await system.stopProcess(runs, 'SIGTERM');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(8_000);
    expect(runtime.sawConnectionClosed(runId)).toBe(true);

    await system.waitHealthy(await system.spawn('runs-service'));
    const run = (await http(base(), 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run;
    expect(run).toMatchObject({ status: 'error', is_finished: true });
    const events = (await http(base(), 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body.events;
    expect(events[events.length - 1].event.failed.error).toMatch(/shut down/);
  });

  it('the gateway closes open event streams (without their end event) and exits', async () => {
    const agentId = await newAgent();
    runtime.script('streamed', hang({ type: 'step', title: 'working' }));
    const runId = await startRun(agentId, 'streamed');
    const gateway = system.of('api-gateway')[0];
    const stream = await fetch(`${base()}/v1/agents/${agentId}/runs/${runId}/events/stream`, { headers: { 'x-api-key': KEY } });
    expect(stream.status).toBe(200);
    const body = stream.text();
    await sleep(300);

    const exit = await system.stopProcess(gateway, 'SIGTERM');
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.ms).toBeLessThan(5_000);
    const text = await body;
    expect(text).toContain('event: run_event');
    expect(text).not.toContain('event: end');
    await system.waitHealthy(await system.spawn('api-gateway'));
  });

  it('every other app exits 0 promptly when idle', async () => {
    const idle = [...system.of('agents-service'), ...system.of('scheduler-service'), ...system.of('runs-service')];
    const exits = await Promise.all(idle.map((p) => system.stopProcess(p, 'SIGTERM')));
    for (const exit of exits) {
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(exit.ms).toBeLessThan(5_000);
    }
  });
});
