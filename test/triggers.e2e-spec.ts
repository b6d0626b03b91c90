import { randomBytes } from 'node:crypto';
import { sign as githubSign, verify as githubVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { TestRuntime, lines } from './support/test-runtime';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const MAX_DEPTH = 3;
const ENDPOINT_LIMIT = 8;

/** Triggers: inbound webhook endpoints and event triggers, through the gateway (docs/triggers.md). */
describe('Triggers', () => {
  let runtime: TestRuntime;
  let system: TestSystem;
  let base: string;
  let alice: User;
  let mallory: User;

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    runtime.handler = lines({ type: 'completed', outcome: 'success' });
    system = await TestSystem.start({
      runsEnv: { AGENT_RUNTIME_URL: runtime.url, AGENT_RUNTIME_SECRET: 'triggers-runtime-secret-0123456789' },
      schedulerEnv: { TRIGGER_MAX_DEPTH: String(MAX_DEPTH), QUOTA_TRIGGERS_PER_AGENT: '4', RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: String(ENDPOINT_LIMIT) },
      gatewayEnv: { RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '10000' },
    });
    base = system.url();
    [alice, mallory] = [await freshUser(system, 'alice'), await freshUser(system, 'mallory')];
  });
  afterAll(async () => {
    await system?.stop();
    await runtime?.close();
  });

  async function deployedAgent(user = alice): Promise<string> {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { run_mode: 'build' } });
    await eventually(
      'agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: user.key })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    return agentId;
  }

  const createTrigger = async (agentId: string, body: object, user = alice) =>
    http(base, 'POST', `/v1/agents/${agentId}/triggers`, { key: user.key, body });

  /** A webhook trigger and the path of its URL. */
  async function inbound(agentId: string, body: object = {}): Promise<{ triggerId: string; path: string; secret: string }> {
    const created = await createTrigger(agentId, { kind: 'webhook', name: 'inbound', ...body });
    expect(created.status).toBe(201);
    return { triggerId: created.body.trigger_id, path: new URL(created.body.url).pathname, secret: created.body.secret };
  }

  const call = (path: string, payload: unknown, headers: Record<string, string> = {}) =>
    http(base, 'POST', path, { rawBody: JSON.stringify(payload), headers: { 'content-type': 'application/json', ...headers } });

  const runsOf = async (agentId: string, query = '', user = alice) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs?page_size=1000${query}`, { key: user.key })).body.runs as Array<Record<string, any>>;

  describe('inbound webhook endpoints', () => {
    it('creates an endpoint whose URL and secret are shown once, and a call starts a run whose user_message is rendered from the payload', async () => {
      const agentId = await deployedAgent();
      const created = await createTrigger(agentId, {
        kind: 'webhook',
        name: 'deploys',
        message_template: 'Deploy {{payload.ref}} of {{payload.repository.name}} ({{headers.x-source}})',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ kind: 'webhook', name: 'deploys', status: 'active', verification: 'none', agent_id: agentId, last_error: null });
      expect(created.body.url).toMatch(new RegExp(`/hooks/${created.body.trigger_id}/[A-Za-z0-9_-]{43}$`));
      expect(created.body.secret).toMatch(/^whsec_/);
      expect(created.body).not.toHaveProperty('source_agent_id');
      const read = await http(base, 'GET', `/v1/agents/${agentId}/triggers/${created.body.trigger_id}`, { key: alice.key });
      expect(read.body).not.toHaveProperty('url');
      expect(read.body).not.toHaveProperty('secret');
      expect(JSON.stringify(read.body)).not.toContain(new URL(created.body.url).pathname.split('/').pop());

      const payload = { ref: 'v1.2', repository: { name: 'app' } };
      const res = await call(new URL(created.body.url).pathname, payload, { 'x-source': 'ci', authorization: 'Bearer hidden' });
      expect(res.status).toBe(202);
      expect(Object.keys(res.body)).toEqual(['run_id']);
      const [run] = await eventually('the run finished', () => runsOf(agentId, '&filter_trigger_kind=webhook'), (r) => r.length === 1 && r[0].is_finished);
      expect(run).toMatchObject({
        run_id: res.body.run_id,
        goal: 'Deploy v1.2 of app (ci)',
        run_kind: 'webhook',
        trigger_id: created.body.trigger_id,
        webhook_subscription_id: created.body.trigger_id,
      });
      const [dispatch] = runtime.dispatchesFor(res.body.run_id);
      expect(dispatch.body.trigger_kind).toBe('webhook');
      expect(dispatch.body.trigger).toMatchObject({ kind: 'webhook', trigger_id: created.body.trigger_id, depth: 0, payload });
      expect(dispatch.body.trigger.headers['x-source']).toBe('ci');
      expect(dispatch.body.trigger.headers).not.toHaveProperty('authorization');
      // The run keeps its input as the runtime was given it, readable on the run.
      expect(run.trigger_data).toMatchObject({ payload, headers: { 'x-source': 'ci' } });
      expect(run.trigger_data.headers).not.toHaveProperty('authorization');
      expect((await runsOf(agentId, '&filter_trigger_kind=api')).every((r) => r.run_kind === 'api')).toBe(true);
      expect((await http(base, 'GET', `/v1/agents/${agentId}/triggers/${created.body.trigger_id}`, { key: alice.key })).body.last_triggered_at).not.toBeNull();
    });

    it('a repeated delivery id within 24 hours answers the first run instead of starting another', async () => {
      const agentId = await deployedAgent();
      const { path } = await inbound(agentId);
      const first = await call(path, { n: 1 }, { 'x-github-delivery': 'd-1' });
      const again = await call(path, { n: 2 }, { 'x-github-delivery': 'd-1' });
      const other = await call(path, { n: 3 }, { 'x-github-delivery': 'd-2' });
      expect([first.status, again.status, other.status]).toEqual([202, 202, 202]);
      expect(again.body.run_id).toBe(first.body.run_id);
      expect(other.body.run_id).not.toBe(first.body.run_id);
      expect(await runsOf(agentId, '&filter_trigger_kind=webhook')).toHaveLength(2);
    });

    it('Standard Webhooks: a good signature starts a run; a bad, stale or missing one is a 401 that starts nothing; a replayed webhook-id answers the first run', async () => {
      const agentId = await deployedAgent();
      const { path, secret } = await inbound(agentId, { verification: 'standard_webhooks' });
      const body = JSON.stringify({ event: 'payment.succeeded' });
      const signed = (id: string, at = new Date(), key = secret) => ({
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(key).sign(id, at, body),
      });
      const good = await http(base, 'POST', path, { rawBody: body, headers: signed('msg_1') });
      expect(good.status).toBe(202);
      const replay = await http(base, 'POST', path, { rawBody: body, headers: signed('msg_1') });
      expect(replay.body.run_id).toBe(good.body.run_id);
      for (const headers of [
        signed('msg_2', new Date(), `whsec_${Buffer.alloc(32, 3).toString('base64')}`),
        signed('msg_3', new Date(Date.now() - 6 * 60_000)),
        { 'content-type': 'application/json' },
      ]) {
        expectProblem(await http(base, 'POST', path, { rawBody: body, headers }), 401);
      }
      const tampered = await http(base, 'POST', path, { rawBody: body.replace('succeeded', 'refunded'), headers: signed('msg_4') });
      expectProblem(tampered, 401);
      expect(await runsOf(agentId, '&filter_trigger_kind=webhook')).toHaveLength(1);
    });

    it('GitHub: X-Hub-Signature-256 over the raw body, keyed by the secret as given, signed by Octokit; a redelivery answers the first run', async () => {
      const agentId = await deployedAgent();
      const { path, secret } = await inbound(agentId, { verification: 'github', message_template: '{{headers.x-github-event}}: {{payload.head_commit.message}}' });
      const body = JSON.stringify({ ref: 'refs/heads/main', head_commit: { message: 'fix the build' } });
      // As GitHub signs: @octokit/webhooks-methods is GitHub's own signing and verifying code for Node.
      const signature = await githubSign(secret, body);
      expect(await githubVerify(secret, body, signature)).toBe(true);
      const headers = { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/1', 'x-github-event': 'push', 'x-github-delivery': 'gh-1' };
      const good = await http(base, 'POST', path, { rawBody: body, headers: { ...headers, 'x-hub-signature-256': signature } });
      expect(good.status).toBe(202);
      const redelivered = await http(base, 'POST', path, { rawBody: body, headers: { ...headers, 'x-hub-signature-256': signature } });
      expect(redelivered.body.run_id).toBe(good.body.run_id);
      expectProblem(await http(base, 'POST', path, { rawBody: body, headers: { ...headers, 'x-github-delivery': 'gh-2' } }), 401);
      expectProblem(await http(base, 'POST', path, { rawBody: `${body} `, headers: { ...headers, 'x-github-delivery': 'gh-3', 'x-hub-signature-256': signature } }), 401);
      const [run] = await runsOf(agentId, '&filter_trigger_kind=webhook');
      expect(run.goal).toBe('push: fix the build');
      expect(await runsOf(agentId, '&filter_trigger_kind=webhook')).toHaveLength(1);
    });

    it('Svix-powered senders (Clerk, Resend, …): svix-* headers signed by the svix library start a run; a retry of the same message answers the first run', async () => {
      const agentId = await deployedAgent();
      // The sender makes the secret (Svix: whsec_ and 24 bytes) and shows it on its dashboard; it is given to the trigger.
      const senderSecret = `whsec_${randomBytes(24).toString('base64')}`;
      const { path, secret, triggerId } = await inbound(agentId, {
        verification: 'standard_webhooks',
        secret: senderSecret,
        message_template: '{{payload.type}} {{headers.svix-id}}{{headers.svix-signature}}',
      });
      expect(secret).toBe(senderSecret);
      const body = JSON.stringify({ type: 'user.created', data: { id: 'user_29w83sxmDNGwOuEthce5gg56FcC' } });
      const msgId = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
      // As Svix sends a message: its own names, and the svix library's signature over id, timestamp and body.
      const sent = (id: string, at: Date, key = secret) => ({
        'content-type': 'application/json',
        'user-agent': 'Svix-Webhooks/1.0',
        'svix-id': id,
        'svix-timestamp': String(Math.floor(at.getTime() / 1000)),
        'svix-signature': new SvixWebhook(key).sign(id, at, body),
      });
      const firstHeaders = sent(msgId, new Date());
      expect(() => new SvixWebhook(secret).verify(body, firstHeaders)).not.toThrow();
      const first = await http(base, 'POST', path, { rawBody: body, headers: firstHeaders });
      expect(first.status).toBe(202);
      // Svix retries a message with the same id, signed again at a new timestamp.
      const retry = await http(base, 'POST', path, { rawBody: body, headers: sent(msgId, new Date(Date.now() + 5_000)) });
      expect(retry.status).toBe(202);
      expect(retry.body.run_id).toBe(first.body.run_id);
      // A captured call replayed with ids of its own to dodge de-duplication: a webhook-id is what gets checked (401),
      // an Idempotency-Key comes after svix-id (the first run).
      expectProblem(await http(base, 'POST', path, { rawBody: body, headers: { ...firstHeaders, 'webhook-id': 'msg_replayed' } }), 401);
      const withKey = await http(base, 'POST', path, { rawBody: body, headers: { ...firstHeaders, 'idempotency-key': 'replayed' } });
      expect(withKey.body.run_id).toBe(first.body.run_id);
      expectProblem(await http(base, 'POST', path, { rawBody: body, headers: sent('msg_other', new Date(), `whsec_${Buffer.alloc(32, 5).toString('base64')}`) }), 401);
      const { 'svix-signature': _unsigned, ...unsigned } = sent('msg_unsigned', new Date());
      expectProblem(await http(base, 'POST', path, { rawBody: body, headers: unsigned }), 401);

      const [run] = await eventually('the run finished', () => runsOf(agentId, '&filter_trigger_kind=webhook'), (r) => r.length === 1 && r[0].is_finished);
      expect(run).toMatchObject({ run_id: first.body.run_id, goal: `user.created ${msgId}` });
      const [dispatch] = runtime.dispatchesFor(run.run_id);
      expect(dispatch.body.trigger.headers['svix-id']).toBe(msgId);
      expect(dispatch.body.trigger.headers).not.toHaveProperty('svix-signature');

      // The sender rotates its secret: PATCH gives the trigger the new one and keeps the URL.
      const rotated = `whsec_${randomBytes(24).toString('base64')}`;
      const patched = await http(base, 'PATCH', `/v1/agents/${agentId}/triggers/${triggerId}`, { key: alice.key, body: { secret: rotated } });
      expect(patched.status).toBe(200);
      expect(patched.body).not.toHaveProperty('secret');
      expectProblem(await http(base, 'POST', path, { rawBody: body, headers: sent('msg_after_1', new Date()) }), 401);
      expect((await http(base, 'POST', path, { rawBody: body, headers: sent('msg_after_2', new Date(), rotated) })).status).toBe(202);
    });

    it("refuses a sender's secret that is not whsec_ and the base64 of 24 to 64 bytes, and one on an event trigger, with a 400 naming secret", async () => {
      const agentId = await deployedAgent();
      for (const secret of ['not-a-secret', `whsec_${randomBytes(16).toString('base64')}`, `whsec_${randomBytes(65).toString('base64')}`, 42, null]) {
        const res = await createTrigger(agentId, { kind: 'webhook', verification: 'standard_webhooks', secret });
        expectProblem(res, 400);
        expect(JSON.stringify(res.body)).toContain('secret');
      }
      const event = await createTrigger(agentId, { kind: 'event', source_agent_id: agentId, events: ['run.completed'], secret: `whsec_${randomBytes(24).toString('base64')}` });
      expectProblem(event, 400);
      expect(event.body.detail).toMatch(/secret does not apply to event triggers/);
      const { triggerId } = await inbound(agentId);
      for (const secret of ['whsec_short', null]) {
        expectProblem(await http(base, 'PATCH', `/v1/agents/${agentId}/triggers/${triggerId}`, { key: alice.key, body: { secret } }), 400);
      }
    });

    it('a wrong token, an unknown, disabled or deleted trigger all answer the same 404 and start nothing', async () => {
      const agentId = await deployedAgent();
      const { triggerId, path } = await inbound(agentId);
      const token = path.split('/').pop()!;
      const wrongToken = await call(`/hooks/${triggerId}/${'A'.repeat(43)}`, {});
      const unknown = await call(`/hooks/00000000-0000-4000-8000-000000000000/${token}`, {});
      for (const res of [wrongToken, unknown]) {
        expectProblem(res, 404);
        expect(res.body.detail).not.toContain(agentId);
      }
      expect((await http(base, 'PATCH', `/v1/agents/${agentId}/triggers/${triggerId}`, { key: alice.key, body: { status: 'disabled' } })).status).toBe(200);
      expectProblem(await call(path, {}), 404);
      await http(base, 'PATCH', `/v1/agents/${agentId}/triggers/${triggerId}`, { key: alice.key, body: { status: 'active' } });
      expect((await call(path, {})).status).toBe(202);
      expect((await http(base, 'DELETE', `/v1/agents/${agentId}/triggers/${triggerId}`, { key: alice.key })).status).toBe(204);
      expectProblem(await call(path, {}), 404);
      expect(await runsOf(agentId, '&filter_trigger_kind=webhook')).toHaveLength(1);
    });

    it('rotating gives a new URL and secret in one call; the old URL stops working', async () => {
      const agentId = await deployedAgent();
      const { triggerId, path, secret } = await inbound(agentId);
      const rotated = await http(base, 'POST', `/v1/agents/${agentId}/triggers/${triggerId}/rotate`, { key: alice.key });
      expect(rotated.status).toBe(200);
      expect(Object.keys(rotated.body).sort()).toEqual(['secret', 'url']);
      expect(rotated.body.secret).not.toBe(secret);
      expectProblem(await call(path, {}), 404);
      expect((await call(new URL(rotated.body.url).pathname, {})).status).toBe(202);
    });

    it('takes any JSON value, and refuses a body that is not JSON', async () => {
      const agentId = await deployedAgent();
      const { path } = await inbound(agentId);
      expect((await call(path, [1, 2])).status).toBe(202);
      expectProblem(await http(base, 'POST', path, { rawBody: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415);
      expectProblem(await http(base, 'POST', path, { rawBody: '{"a":', headers: { 'content-type': 'application/json' } }), 400);
    });

    it('is rate limited per endpoint; wrong tokens do not use up the real endpoint', async () => {
      const agentId = await deployedAgent();
      const { triggerId, path } = await inbound(agentId);
      for (let i = 0; i < ENDPOINT_LIMIT; i++) await call(`/hooks/${triggerId}/${String(i).padStart(43, 'x')}`, {});
      const answers = [];
      for (let i = 0; i <= ENDPOINT_LIMIT; i++) answers.push(await call(path, { i }));
      expect(answers.slice(0, ENDPOINT_LIMIT).every((a) => a.status === 202)).toBe(true);
      // Refused by scheduler-service, which charges verified calls: its Retry-After crosses to the gateway's answer.
      expectProblem(answers[ENDPOINT_LIMIT], 429);
      expect(Number(answers[ENDPOINT_LIMIT].headers.get('retry-after'))).toBeGreaterThan(0);
      expect(answers[ENDPOINT_LIMIT].body).not.toHaveProperty('retry_after');
    });
  });

  describe('event triggers', () => {
    it("A's completed run starts B, whose dispatch and user_message carry the source run", async () => {
      const [a, b] = [await deployedAgent(), await deployedAgent()];
      const created = await createTrigger(b, {
        kind: 'event',
        source_agent_id: a,
        events: ['run.completed'],
        message_template: 'After {{source_run.run_id}} ({{source_run.outcome}})',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ kind: 'event', source_agent_id: a, events: ['run.completed'] });
      expect(created.body).not.toHaveProperty('url');
      const source = (await http(base, 'POST', `/v1/agents/${a}/runs`, { key: alice.key, body: {} })).body.run.run_id;
      const [run] = await eventually('B started by A', () => runsOf(b, '&filter_trigger_kind=event'), (r) => r.length === 1);
      expect(run).toMatchObject({ run_kind: 'event', trigger_id: created.body.trigger_id, goal: `After ${source} (success)`, webhook_subscription_id: null });
      await eventually('B dispatched', async () => runtime.dispatchesFor(run.run_id), (d) => d.length === 1);
      expect(runtime.dispatchesFor(run.run_id)[0].body.trigger).toMatchObject({
        kind: 'event',
        depth: 1,
        source_run: { run_id: source, agent_id: a, event: 'run.completed', outcome: 'success' },
      });
    });

    it(`a loop A→B→A stops at TRIGGER_MAX_DEPTH (${MAX_DEPTH}) and records why on the trigger`, async () => {
      const [a, b] = [await deployedAgent(), await deployedAgent()];
      const aToB = (await createTrigger(b, { kind: 'event', source_agent_id: a, events: ['run.completed'] })).body.trigger_id;
      const bToA = (await createTrigger(a, { kind: 'event', source_agent_id: b, events: ['run.completed'] })).body.trigger_id;
      await http(base, 'POST', `/v1/agents/${a}/runs`, { key: alice.key, body: {} });
      // A (depth 0) → B (1) → A (2) → B (3); the next, A at depth 4, is refused.
      const refused = await eventually(
        'the loop stopped',
        async () => (await http(base, 'GET', `/v1/agents/${a}/triggers/${bToA}`, { key: alice.key })).body,
        (t) => t.last_error !== null,
      );
      expect(refused.last_error).toMatch(/TRIGGER_MAX_DEPTH \(3\)/);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(await runsOf(a, '&filter_trigger_kind=event')).toHaveLength(1);
      expect(await runsOf(b, '&filter_trigger_kind=event')).toHaveLength(2);
      expect((await http(base, 'GET', `/v1/agents/${b}/triggers/${aToB}`, { key: alice.key })).body.last_error).toBeNull();
    });

    it('refuses a source agent of another user as unknown, and fields of the other kind', async () => {
      const agentId = await deployedAgent();
      const theirs = (await http(base, 'POST', '/v1/agents', { key: mallory.key, body: {} })).body.agent.agent_id;
      const res = await createTrigger(agentId, { kind: 'event', source_agent_id: theirs, events: ['run.failed'] });
      expectProblem(res, 400);
      expect(res.body.detail).toMatch(/names no agent of yours/);
      for (const body of [
        { kind: 'event', events: ['run.failed'] },
        { kind: 'event', source_agent_id: agentId },
        { kind: 'event', source_agent_id: agentId, events: ['run.started'] },
        { kind: 'webhook', source_agent_id: agentId },
        { kind: 'event', source_agent_id: agentId, events: ['run.failed'], verification: 'github' },
        { kind: 'webhook', message_template: '{{#payload.a}} unclosed' },
        { kind: 'cron' },
      ]) {
        expectProblem(await createTrigger(agentId, body), 400);
      }
    });
  });

  describe('against another user', () => {
    it("another user's agent and trigger are 404s for every call, and change nothing", async () => {
      const agentId = await deployedAgent();
      const { triggerId } = await inbound(agentId);
      const as = (method: string, path: string, body?: object) => http(base, method, path, { key: mallory.key, body });
      for (const res of [
        await as('GET', `/v1/agents/${agentId}/triggers`),
        await as('POST', `/v1/agents/${agentId}/triggers`, { kind: 'webhook' }),
        await as('GET', `/v1/agents/${agentId}/triggers/${triggerId}`),
        await as('PATCH', `/v1/agents/${agentId}/triggers/${triggerId}`, { status: 'disabled' }),
        await as('POST', `/v1/agents/${agentId}/triggers/${triggerId}/rotate`),
        await as('DELETE', `/v1/agents/${agentId}/triggers/${triggerId}`),
      ]) {
        expectProblem(res, 404);
      }
      const own = await deployedAgent(mallory);
      expectProblem(await as('GET', `/v1/agents/${own}/triggers/${triggerId}`), 404);
      expect((await http(base, 'GET', `/v1/agents/${agentId}/triggers/${triggerId}`, { key: alice.key })).body.status).toBe('active');
    });

    it('deleting an agent ends its endpoints at once; an agent that takes its id again has none of its triggers', async () => {
      const agentId = await deployedAgent();
      const { path } = await inbound(agentId);
      const follower = await deployedAgent();
      await createTrigger(follower, { kind: 'event', source_agent_id: agentId, events: ['run.completed'] });
      expect((await http(base, 'DELETE', `/v1/agents/${agentId}`, { key: alice.key })).status).toBe(204);
      const gone = await call(path, {});
      expectProblem(gone, 404);
      expect(gone.body.detail).not.toContain(agentId);

      const again = await http(base, 'POST', '/v1/agents', { key: alice.key, body: { agent_id: agentId } });
      expect(again.status).toBe(201);
      expect((await http(base, 'GET', `/v1/agents/${agentId}/triggers`, { key: alice.key })).body.triggers).toEqual([]);
      expectProblem(await call(path, {}), 404);
      // The follower's trigger followed the deleted agent, not the new one with its id.
      await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: alice.key, body: { run_mode: 'build' } });
      await eventually('the new agent built', async () => (await runsOf(agentId)).filter((r) => r.is_finished), (r) => r.length === 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await runsOf(follower, '&filter_trigger_kind=event')).toEqual([]);
    });

    it('quota: at most QUOTA_TRIGGERS_PER_AGENT triggers per agent, with a 422 that names it; other agents are not affected', async () => {
      const [full, other] = [await deployedAgent(), await deployedAgent()];
      for (let i = 0; i < 4; i++) expect((await createTrigger(full, { kind: 'webhook' })).status).toBe(201);
      const over = await createTrigger(full, { kind: 'webhook' });
      expectProblem(over, 422);
      expect(over.body).toMatchObject({ type: 'urn:aas:problem:quota-exceeded', quota: 'triggers_per_agent', limit: 4 });
      expect((await createTrigger(other, { kind: 'webhook' })).status).toBe(201);
    });
  });
});
