import { Webhook as StandardWebhook } from 'standardwebhooks';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';
import { Receiver } from './support/webhook-receiver';

const TEST_EVENTS_PER_WEBHOOK = 3;

/**
 * Issue #25, items 4 and 5: a webhook's health as its deliveries show it, refusals that end a delivery
 * at once, what each attempt sent and got back, test events and redelivering the failed deliveries
 * since a time; a second user reaches none of it. (Refusing URLs at creation needs private networks
 * refused: test/webhooks.e2e-spec.ts, "Webhook SSRF protection".)
 */
describe('Webhook health and debuggable deliveries', () => {
  let system: TestSystem;
  let base: string;
  let receiver: Receiver;
  let receiverUrl: string;
  let owner: User;
  let stranger: User;
  /** Paths whose receiver is down (answers 503) until taken out. */
  const down = new Set<string>();
  /** Paths whose receiver refuses what it is sent (400: an answer, so the circuit stays closed) until taken out. */
  const refusing = new Set<string>();

  beforeAll(async () => {
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    receiver.answer = (path) =>
      path === '/gone'
        ? { status: 410 }
        : down.has(path)
          ? { status: 503 }
          : refusing.has(path)
            ? { status: 400 }
            : { status: 200, headers: { 'x-receiver': 'test' } };
    system = await TestSystem.start({
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' },
      webhooksEnv: {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // One retry, soon: a failed delivery is failed within a second.
        WEBHOOK_RETRY_DELAYS: '100ms',
        WEBHOOK_CIRCUIT_FAILURE_THRESHOLD: '3',
        WEBHOOK_CIRCUIT_COOLDOWN_MS: '1500',
        WEBHOOK_TEST_EVENTS_PER_MINUTE: String(TEST_EVENTS_PER_WEBHOOK),
      },
    });
    base = system.url();
    [owner, stranger] = [await freshUser(system, 'owner'), await freshUser(system, 'stranger')];
  });
  afterAll(async () => {
    await system?.stop();
    await receiver.close();
  });

  const newAgent = async () => (await http(base, 'POST', '/v1/agents', { key: owner.key, body: {} })).body.agent.agent_id as string;
  async function subscribe(agentId: string, path: string, events = ['run.started']): Promise<{ path: string; secret: string }> {
    const created = await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: owner.key, body: { url: receiverUrl + path, events } });
    expect(created.status).toBe(201);
    return { path: `/v1/agents/${agentId}/webhooks/${created.body.webhook_id}`, secret: created.body.signing_secret };
  }
  const startRun = (agentId: string) => http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: owner.key, body: { skip_deploy_check: true } });
  const read = async (path: string, user = owner) => (await http(base, 'GET', path, { key: user.key })).body;

  it('shows failures in a row, the last error and the open circuit while the endpoint is down, and the recovery after', async () => {
    down.add('/down');
    const agentId = await newAgent();
    const { path } = await subscribe(agentId, '/down');
    expect((await read(path)).health).toEqual({
      consecutive_failures: 0,
      last_success_at: null,
      last_error: null,
      last_error_at: null,
      circuit_open_until: null,
      disabled_reason: null,
    });
    // Two deliveries of two attempts each: the third failure in a row opens the circuit.
    await startRun(agentId);
    await startRun(agentId);
    // The circuit (in Redis) and the attempt (in PostgreSQL) are written side by side: either may be seen first.
    const failing = await eventually('the circuit open', () => read(path), (w) => w.health.circuit_open_until !== null && w.health.consecutive_failures >= 3);
    expect(failing.status).toBe('active');
    expect(failing.health).toMatchObject({ last_success_at: null, last_error: 'HTTP 503 Service Unavailable', disabled_reason: null });
    expect(Date.parse(failing.health.circuit_open_until)).toBeGreaterThan(Date.now());
    expect(Date.parse(failing.health.last_error_at)).toBeLessThanOrEqual(Date.now());

    // Back up: once the circuit lets one through (its cool-down is 1.5 s), a test event is the probe.
    down.delete('/down');
    await eventually('the circuit half-open', () => read(path), (w) => w.health.circuit_open_until === null, 10_000);
    expect((await http(base, 'POST', `${path}/test`, { key: owner.key })).status).toBe(202);
    const recovered = await eventually('the probe through', () => read(path), (w) => w.health.last_success_at !== null, 10_000);
    expect(recovered.health).toMatchObject({ consecutive_failures: 0, circuit_open_until: null, last_error: 'HTTP 503 Service Unavailable' });
    expect(Date.parse(recovered.health.last_success_at)).toBeGreaterThan(Date.parse(failing.health.last_error_at));
  });

  it('ends a delivery answered 410 Gone at once, saying why in its attempt, and the webhook shows it is disabled for that', async () => {
    const agentId = await newAgent();
    const { path } = await subscribe(agentId, '/gone');
    await startRun(agentId);
    const [delivery] = await eventually('the delivery failed', async () => (await read(`${path}/deliveries`)).deliveries, (d) => d[0]?.status === 'failed');
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 410, error: 'not retried: the receiver answered 410 Gone, so the webhook is disabled' }),
    ]);
    const webhook = await read(path);
    expect(webhook).toMatchObject({ status: 'disabled', health: { disabled_reason: 'receiver_gone', consecutive_failures: 1 } });
    expect(webhook.health.last_error).toMatch(/^HTTP 410 Gone: not retried/);
    // No retry came (WEBHOOK_RETRY_DELAYS is 100ms).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.on('/gone')).toHaveLength(1);
  });

  it('sends a signed test event that the official Standard Webhooks verifier accepts, and keeps what went and came back', async () => {
    const agentId = await newAgent();
    const { path, secret } = await subscribe(agentId, '/test', ['run.completed', 'run.failed']);

    const sent = await http(base, 'POST', `${path}/test`, { key: owner.key, body: { event: 'run.failed' } });

    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ event: 'run.failed', status: 'pending', test: true, attempts: [] });
    const [got] = await eventually('the test event', () => receiver.on('/test'), (r) => r.length === 1);
    const verified = new StandardWebhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toEqual({
      event: 'run.failed',
      timestamp: expect.any(String),
      data: { run_id: '00000000-0000-0000-0000-000000000000', agent_id: agentId, status: 'error', finished_at: expect.any(String) },
    });
    expect(got.headers['webhook-id']).toBe(sent.body.delivery_id);

    const delivery = await eventually('the attempt', () => read(`${path}/deliveries/${sent.body.delivery_id}`), (d) => d.status === 'succeeded');
    const [attempt] = delivery.attempts;
    expect(attempt).toMatchObject({ status_code: 200, response_body: 'ok', response_headers: expect.objectContaining({ 'x-receiver': 'test' }) });
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-service-signature', 'x-service-event', 'content-type']) {
      expect(attempt.request_headers[name]).toBe(got.headers[name]);
    }
    expect(JSON.stringify(delivery)).not.toContain(secret.replace(/^whsec_/, ''));
    // Without a body: the webhook's first event.
    expect((await http(base, 'POST', `${path}/test`, { key: owner.key })).body).toMatchObject({ event: 'run.completed', test: true });
  });

  it('limits test events per webhook (429 with Retry-After), and a stranger reaches neither them nor the allowance', async () => {
    const agentId = await newAgent();
    const { path } = await subscribe(agentId, '/limited');
    const attempts = [`${path}/test`, `${path}/deliveries/redeliver`];
    for (let i = 0; i < 5; i++) {
      for (const target of attempts) {
        expectProblem(await http(base, 'POST', target, { key: stranger.key, body: target.endsWith('redeliver') ? { since: '2026-01-01T00:00:00Z' } : {} }), 404);
      }
      expectProblem(await http(base, 'GET', path, { key: stranger.key }), 404);
    }
    for (let i = 0; i < TEST_EVENTS_PER_WEBHOOK; i++) expect((await http(base, 'POST', `${path}/test`, { key: owner.key })).status).toBe(202);
    const over = await http(base, 'POST', `${path}/test`, { key: owner.key });
    expectProblem(over, 429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    const [delivery] = (await read(`${path}/deliveries`)).deliveries;
    expectProblem(await http(base, 'GET', `${path}/deliveries/${delivery.delivery_id}`, { key: stranger.key }), 404);
    expectProblem(await http(base, 'POST', `${path}/test`, { key: owner.key, body: { event: 'run.exploded' } }), 400);
  });

  it('redelivers every failed delivery made since a time in one request, once however often it is asked', async () => {
    refusing.add('/batch');
    const agentId = await newAgent();
    const { path } = await subscribe(agentId, '/batch');
    const deliveries = async () => (await read(`${path}/deliveries`)).deliveries as Array<{ delivery_id: string; status: string; created_at: string }>;
    await startRun(agentId);
    const [before] = await eventually('the first delivery failed', deliveries, (d) => d[0]?.status === 'failed');
    const since = new Date(Date.parse(before.created_at) + 1).toISOString();
    await startRun(agentId);
    await startRun(agentId);
    const failed = await eventually('three failed', deliveries, (d) => d.length === 3 && d.every((x) => x.status === 'failed'));
    refusing.delete('/batch');
    const received = receiver.on('/batch').length;

    const [first, second] = await Promise.all([0, 1].map(() => http(base, 'POST', `${path}/deliveries/redeliver`, { key: owner.key, body: { since } })));

    expect([first.status, second.status]).toEqual([202, 202]);
    expect(first.body.queued + second.body.queued).toBe(2);
    expect(first.body.more || second.body.more).toBe(false);
    const again = failed.filter((d) => d.delivery_id !== before.delivery_id).map((d) => d.delivery_id);
    const done = await eventually('both succeeded', deliveries, (d) => again.every((id) => d.find((x) => x.delivery_id === id)?.status === 'succeeded'), 10_000);
    expect(done.find((d) => d.delivery_id === before.delivery_id)?.status).toBe('failed');
    expect((await http(base, 'POST', `${path}/deliveries/redeliver`, { key: owner.key, body: { since } })).body).toEqual({ queued: 0, more: false });
    expect(
      receiver
        .on('/batch')
        .slice(received)
        .map((r) => r.headers['webhook-id'])
        .sort(),
    ).toEqual([...again].sort());
    expectProblem(await http(base, 'POST', `${path}/deliveries/redeliver`, { key: owner.key, body: { since: 'yesterday' } }), 400);
  });
});
