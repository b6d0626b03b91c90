import { QueueNames } from '@aas/contracts';
import { Queue } from 'bullmq';
import { Client } from 'pg';
import { expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { Receiver, verifyWebhookSignatures as verify } from './support/webhook-receiver';
import { eventually } from './support/eventually';

const KEY = 'webhooks-bootstrap-key-0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Webhooks', () => {
  let system: TestSystem;
  let base: string;
  let receiver: Receiver;
  let receiverUrl: string;

  beforeAll(async () => {
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' },
      webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_DELAYS: '300ms,300ms,300ms' },
    });
    base = system.url();
  });
  afterAll(async () => {
    await system.stop();
    await receiver.close();
  });

  const newAgent = async () => (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id as string;
  const subscribe = (agentId: string, path: string, events: string[]) =>
    http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: KEY, body: { url: receiverUrl + path, events } });
  const startRun = (agentId: string) => http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } });

  it('creates, shows, lists, patches and deletes webhooks exactly as the spec says', async () => {
    const agentId = await newAgent();
    const created = await subscribe(agentId, '/crud', ['run.started']);
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(['created_at', 'events', 'signing_secret', 'status', 'url', 'webhook_id']);
    expect(created.body).toMatchObject({ url: receiverUrl + '/crud', events: ['run.started'], status: 'active' });
    const id = created.body.webhook_id;
    const path = `/v1/agents/${agentId}/webhooks/${id}`;

    const got = await http(base, 'GET', path, { key: KEY });
    expect(Object.keys(got.body).sort()).toEqual(['agent_id', 'created_at', 'events', 'health', 'status', 'updated_at', 'url', 'user_id', 'webhook_id']);
    expect(JSON.stringify((await http(base, 'GET', `/v1/agents/${agentId}/webhooks`, { key: KEY })).body)).not.toContain(
      created.body.signing_secret,
    );

    const patched = await http(base, 'PATCH', path, { key: KEY, body: { events: ['run.completed', 'run.failed'] } });
    expect(patched.body).toMatchObject({ url: receiverUrl + '/crud', events: ['run.completed', 'run.failed'], status: 'active' });
    expect((await http(base, 'PATCH', path, { key: KEY, body: { status: 'disabled' } })).body.status).toBe('disabled');

    const del = await http(base, 'DELETE', path, { key: KEY });
    expect(del.status).toBe(204);
    expectProblem(await http(base, 'GET', path, { key: KEY }), 404);
    expectProblem(await http(base, 'DELETE', path, { key: KEY }), 404);
  });

  it.each([
    [{ url: 'ftp://example.com/x', events: ['run.started'] }, 'url'],
    [{ url: '/relative', events: ['run.started'] }, 'url'],
    [{ url: 'https://user:pw@example.com/x', events: ['run.started'] }, 'url'],
    [{ url: 'https://example.com/x', events: [] }, 'events'],
    [{ url: 'https://example.com/x', events: ['run.exploded'] }, 'events'],
    [{ events: ['run.started'] }, 'url'],
  ])('refuses %j naming %s', async (body, field) => {
    const agentId = await newAgent();
    const res = await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: KEY, body });
    expectProblem(res, 400);
    expect(res.body.detail).toContain(field);
  });

  it('answers 404 for an unknown agent or webhook', async () => {
    expectProblem(await http(base, 'GET', '/v1/agents/00000000-0000-4000-8000-000000000000/webhooks', { key: KEY }), 404);
    const agentId = await newAgent();
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/webhooks/not-a-uuid`, { key: KEY }), 404);
  });

  it('delivers signed notifications for the subscribed events only, with the spec body', async () => {
    const agentId = await newAgent();
    const secret = (await subscribe(agentId, '/signed', ['run.started', 'run.completed'])).body.signing_secret;
    const completedOnly = (await subscribe(agentId, '/completed-only', ['run.completed'])).body.signing_secret;
    const runId = (await startRun(agentId)).body.run.run_id;

    const got = await eventually('both signed deliveries', () => receiver.on('/signed'), (r) => r.length >= 2, 10_000);
    const bodies = got.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.event).sort()).toEqual(['run.completed', 'run.started']);
    const started = bodies.find((b) => b.event === 'run.started');
    const completed = bodies.find((b) => b.event === 'run.completed');
    expect(started.data).toEqual({ run_id: runId, agent_id: agentId, status: 'in_progress' });
    expect(completed.data).toEqual({ run_id: runId, agent_id: agentId, status: 'completed', outcome: 'success', finished_at: expect.any(String) });
    expect(Date.parse(completed.timestamp)).not.toBeNaN();
    for (const r of got) {
      verify(secret, r);
      expect(r.headers['x-service-event']).toBe(JSON.parse(r.body).event);
      expect(r.headers['content-type']).toBe('application/json');
    }
    const only = await eventually('the run.completed delivery', () => receiver.on('/completed-only'), (r) => r.length >= 1, 10_000);
    await sleep(300);
    expect(receiver.on('/completed-only').map((r) => JSON.parse(r.body).event)).toEqual(['run.completed']);
    verify(completedOnly, only[0]);
  });

  it('retries a 500 with the same delivery id, and honours Retry-After', async () => {
    receiver.answer = (path, nth) =>
      path === '/flaky' && nth === 1
        ? { status: 500 }
        : path === '/later' && nth === 1
          ? { status: 503, headers: { 'retry-after': '2' } }
          : { status: 200 };
    const agentId = await newAgent();
    await subscribe(agentId, '/flaky', ['run.started']);
    await subscribe(agentId, '/later', ['run.started']);
    await startRun(agentId);
    const flaky = await eventually('two /flaky attempts', () => receiver.on('/flaky'), (r) => r.length >= 2, 10_000);
    expect(flaky[1].headers['x-service-delivery']).toBe(flaky[0].headers['x-service-delivery']);
    expect(flaky[1].body).toBe(flaky[0].body);
    const later = await eventually('two /later attempts', () => receiver.on('/later'), (r) => r.length >= 2, 10_000);
    expect(later[1].at - later[0].at).toBeGreaterThanOrEqual(1900);
    await sleep(500);
    expect(receiver.on('/flaky')).toHaveLength(2);

    // Every attempt is recorded, and a delivery can be sent again with the same id.
    const hooks = (await http(base, 'GET', `/v1/agents/${agentId}/webhooks`, { key: KEY })).body.webhooks;
    const flakyHook = hooks.find((h: { url: string }) => h.url.endsWith('/flaky')).webhook_id;
    const listed = await http(base, 'GET', `/v1/agents/${agentId}/webhooks/${flakyHook}/deliveries`, { key: KEY });
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(1);
    const inState = async (status: string) => (await http(base, 'GET', `/v1/agents/${agentId}/webhooks/${flakyHook}/deliveries?filter_status=${status}`, { key: KEY }));
    expect([(await inState('succeeded')).body.total, (await inState('failed')).body.total, (await inState('pending')).body.deliveries]).toEqual([1, 0, []]);
    expectProblem(await inState('delivered'), 400);
    const [delivery] = listed.body.deliveries;
    expect(delivery).toMatchObject({ delivery_id: flaky[0].headers['x-service-delivery'], event: 'run.started', status: 'succeeded' });
    expect(delivery.payload).toEqual(JSON.parse(flaky[0].body));
    expect(delivery.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(delivery.attempts[0].response_body).toBe('ok');
    const again = await http(base, 'POST', `/v1/agents/${agentId}/webhooks/${flakyHook}/deliveries/${delivery.delivery_id}/redeliver`, {
      key: KEY,
    });
    expect(again.status).toBe(202);
    const third = await eventually('a third /flaky attempt', () => receiver.on('/flaky'), (r) => r.length >= 3, 10_000);
    expect(third[2].headers['x-service-delivery']).toBe(delivery.delivery_id);
    expectProblem(
      await http(base, 'POST', `/v1/agents/${agentId}/webhooks/${flakyHook}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`, {
        key: KEY,
      }),
      404,
    );
  });

  it('redelivering a delivery waiting to retry sends that retry now, rather than adding a second job that would also send', async () => {
    receiver.answer = (path, nth) =>
      path !== '/waiting' || nth >= 3 ? { status: 200 } : { status: 503, headers: { 'retry-after': nth === 1 ? '3600' : '1' } };
    const agentId = await newAgent();
    const hook = (await subscribe(agentId, '/waiting', ['run.started'])).body.webhook_id;
    await startRun(agentId);
    const deliveries = `/v1/agents/${agentId}/webhooks/${hook}/deliveries`;
    const listed = async () => (await http(base, 'GET', deliveries, { key: KEY })).body.deliveries;
    // next_attempt_at is written with the attempt (the list reads deliveries and attempts in two queries).
    const [waiting] = await eventually('the first attempt and its next time', listed, (d) => d[0]?.attempts.length === 1 && d[0].next_attempt_at !== null, 10_000);
    expect(waiting.status).toBe('pending');
    expect(Date.parse(waiting.next_attempt_at)).toBeGreaterThan(Date.now() + 3_000_000);
    const queue = new Queue(QueueNames.WebhookDeliveries, { connection: { url: system.infra.redisUrl }, prefix: system.infra.redisPrefix });
    try {
      expect(await queue.getJobState(waiting.delivery_id)).toBe('delayed');

      const again = await http(base, 'POST', `${deliveries}/${waiting.delivery_id}/redeliver`, { key: KEY });

      expect(again.status).toBe(202);
      expect(again.body).toMatchObject({ delivery_id: waiting.delivery_id, status: 'pending' });
      expect(Date.parse(again.body.next_attempt_at)).toBeLessThanOrEqual(Date.now());
      // Sent now (a 503 asking for a second), then once more a second later: one chain of retries.
      const [done] = await eventually('the delivery to succeed', listed, (d) => d[0]?.status === 'succeeded', 10_000);
      expect(done.attempts.map((a: { attempt: number; status_code: number }) => [a.attempt, a.status_code])).toEqual([
        [1, 503],
        [2, 503],
        [3, 200],
      ]);
      expect(receiver.on('/waiting').map((r) => r.headers['x-service-delivery'])).toEqual(Array(3).fill(waiting.delivery_id));
      // Nothing is left waiting to send it again in an hour.
      const live = await queue.getJobs(['waiting', 'prioritized', 'delayed', 'active']);
      expect(live.filter((job) => job.data.delivery_id === waiting.delivery_id)).toEqual([]);
    } finally {
      await queue.close();
    }
  });

  it('a 410 disables the webhook; a disabled or deleted webhook gets nothing more', async () => {
    receiver.answer = (path) => (path === '/gone' ? { status: 410 } : { status: 200 });
    const agentId = await newAgent();
    const gone = (await subscribe(agentId, '/gone', ['run.started', 'run.completed'])).body.webhook_id;
    const disabled = (await subscribe(agentId, '/disabled', ['run.started'])).body.webhook_id;
    const deleted = (await subscribe(agentId, '/deleted', ['run.started'])).body.webhook_id;
    await http(base, 'PATCH', `/v1/agents/${agentId}/webhooks/${disabled}`, { key: KEY, body: { status: 'disabled' } });
    await http(base, 'DELETE', `/v1/agents/${agentId}/webhooks/${deleted}`, { key: KEY });

    await startRun(agentId);
    await eventually(
      'the webhook disabled by the 410',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}/webhooks/${gone}`, { key: KEY })).body.status,
      (s) => s === 'disabled',
      10_000,
    );
    await startRun(agentId);
    await sleep(1000);
    expect(receiver.on('/gone')).toHaveLength(1);
    expect(receiver.on('/disabled')).toHaveLength(0);
    expect(receiver.on('/deleted')).toHaveLength(0);
  });
});

describe('Webhook SSRF protection', () => {
  let system: TestSystem;
  let receiver: Receiver;
  let receiverUrl: string;

  beforeAll(async () => {
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' }, webhooksEnv: { WEBHOOK_RETRY_DELAYS: '100ms' } });
  });
  afterAll(async () => {
    await system.stop();
    await receiver.close();
  });

  it('refuses a loopback URL at creation and at update, by literal IP and by a name resolving only to loopback, saying why', async () => {
    const base = system.url();
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    const port = new URL(receiverUrl).port;
    const webhooks = `/v1/agents/${agentId}/webhooks`;
    for (const [url, why] of [
      [`${receiverUrl}/ip`, /url: 127\.0\.0\.1 is not a public address; this installation does not call loopback, private, link-local/],
      [`http://localhost:${port}/name`, /url: the host localhost resolves to (127\.0\.0\.1|::1), which is not a public address/],
      ['http://[::ffff:10.0.0.1]/mapped', /url: ::ffff:a00:1 is not a public address/],
    ] as const) {
      const refused = await http(base, 'POST', webhooks, { key: KEY, body: { url, events: ['run.started'] } });
      expectProblem(refused, 400);
      expect(refused.body.detail).toMatch(why);
      expect(refused.body.errors).toEqual([{ field: 'url', message: expect.stringMatching(why) }]);
    }
    // A name that does not resolve now is not held against the URL: the check at connect time stands.
    const created = await http(base, 'POST', webhooks, { key: KEY, body: { url: 'https://receiver.invalid/hook', events: ['run.started'] } });
    expect(created.status).toBe(201);
    const patched = await http(base, 'PATCH', `${webhooks}/${created.body.webhook_id}`, { key: KEY, body: { url: 'http://169.254.169.254/latest' } });
    expectProblem(patched, 400);
    expect((await http(base, 'GET', webhooks, { key: KEY })).body.webhooks.map((w: { url: string }) => w.url)).toEqual(['https://receiver.invalid/hook']);
  });

  it('refuses to deliver to a host that resolves to loopback by the time it connects, once: failed, not retried, saying why', async () => {
    const base = system.url();
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    const port = new URL(receiverUrl).port;
    const webhook = await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: KEY, body: { url: 'https://receiver.invalid/hook', events: ['run.started'] } });
    const pg = new Client({ connectionString: system.infra.databaseUrl });
    await pg.connect();
    try {
      // What DNS changing after creation looks like to the worker: the name now resolves to loopback.
      await pg.query(`UPDATE webhooks.webhooks SET url = $1 WHERE id = $2`, [`http://localhost:${port}/rebound`, webhook.body.webhook_id]);
      await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } });
      const deliveries = `/v1/agents/${agentId}/webhooks/${webhook.body.webhook_id}/deliveries`;
      const [failed] = await eventually('the delivery failed', async () => (await http(base, 'GET', deliveries, { key: KEY })).body.deliveries, (d) => d[0]?.status === 'failed', 10_000);
      // WEBHOOK_RETRY_DELAYS is 100ms: a retry would have come by now.
      await sleep(400);
      const [after] = (await http(base, 'GET', deliveries, { key: KEY })).body.deliveries;
      expect(after.attempts).toHaveLength(1);
      expect(failed.attempts[0]).toMatchObject({ status_code: null, response_headers: null });
      expect(failed.attempts[0].error).toMatch(/^refused: webhook host localhost resolves to .*, which is not a public address; not retried: /);
      const { health } = (await http(base, 'GET', `/v1/agents/${agentId}/webhooks/${webhook.body.webhook_id}`, { key: KEY })).body;
      expect(health).toMatchObject({ consecutive_failures: 1, last_error: failed.attempts[0].error, last_success_at: null });
    } finally {
      await pg.end();
    }
    expect(receiver.received).toHaveLength(0);
  });
});
