import { startAgentsService } from '../apps/agents-service/src/agents-service.app';
import { startRunsService } from '../apps/runs-service/src/runs-service.app';
import { startSchedulerService } from '../apps/scheduler-service/src/scheduler-service.app';
import { startWebhooksService } from '../apps/webhook-delivery/src/webhook-delivery.app';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { Dispatch, Reply, TestRuntime, hang } from './support/test-runtime';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const KEY = 'input-requests-bootstrap-key-0123456789';

/**
 * Runs that wait for a person (docs/input-requests.md), against a runtime of protocol version 3 that
 * suspends: it asks, ends its stream, and is dispatched a continuation with the answer. One worker and
 * one executing run per user, so a waiting run that held either would block the next run.
 */
describe('Input requests: ask, answer by API or timeout, resume without holding a worker', () => {
  let runtime: TestRuntime;
  let system: TestSystem;
  let base: string;
  let other: User;

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: runsEnv() });
    base = system.url();
    other = await freshUser(system, 'input-requests-other');
  });
  function runsEnv(): Record<string, string> {
    return {
      AGENT_RUNTIME_URL: runtime.url,
      RUN_WORKER_CONCURRENCY: '1',
      RUN_CONCURRENCY_PER_USER: '1',
      RUN_PAUSE_AFTER_MS: '1500',
      QUOTA_PENDING_INPUT_REQUESTS_PER_USER: '3',
    };
  }

  afterAll(async () => {
    await system?.stop();
    await runtime?.close();
  });

  const agentOf = async (key = KEY) => (await http(base, 'POST', '/v1/agents', { key, body: {} })).body.agent.agent_id as string;
  const getRun = async (agentId: string, runId: string) => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: KEY })).body.run;
  const eventsOf = async (agentId: string, runId: string) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body.events.map((e: any) => e.event);
  const requestsOf = async (agentId: string, runId: string, key = KEY) => http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/input-requests`, { key });
  const answer = (agentId: string, runId: string, requestId: string, body: unknown, key = KEY) =>
    http(base, 'POST', `/v1/agents/${agentId}/runs/${runId}/input-requests/${requestId}`, { key, body });

  /** A version 3 runtime: asks `question` and ends its stream; the continuation completes with what it was given. */
  function asking(name: string, question: Record<string, unknown>): string {
    return runtime.script(name, async (reply: Reply, dispatch: Dispatch) => {
      const continuation = dispatch.body.continuation;
      if (!continuation) {
        reply.line({ type: 'step', title: 'Before asking' });
        reply.line({ type: 'waiting_for_input', suspend: true, input_id: 'q1', prompt: 'Go on?', state: { asked_in: dispatch.body.run_id }, ...question });
        reply.end();
        return;
      }
      reply.line({ type: 'message', text: `answer: ${JSON.stringify(continuation.answer)}` });
      reply.line({ type: 'completed', outcome: 'success', summary: JSON.stringify({ answer: continuation.answer, state: continuation.state }) });
      reply.end();
    });
  }

  async function startAsking(name: string, question: Record<string, unknown>) {
    const agentId = await agentOf();
    const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { user_message: asking(name, question), skip_deploy_check: true } });
    expect(started.status).toBe(201);
    const runId = started.body.run.run_id as string;
    const listed = await eventually(`run ${runId} to ask`, () => requestsOf(agentId, runId), (r) => r.body.input_requests?.length === 1);
    return { agentId, runId, request: listed.body.input_requests[0] };
  }

  /** What the continuation was given, as its completed line's summary says. */
  const givenTo = async (agentId: string, runId: string) => JSON.parse((await eventsOf(agentId, runId)).at(-1).completed.summary);
  const finished = (agentId: string, runId: string) => eventually(`run ${runId} to finish`, () => getRun(agentId, runId), (r) => r.is_finished === true);

  it('asks, is answered by API, and completes with the answer and its state; the answer and who gave it are in its events', async () => {
    const schema = { type: 'object', required: ['amount'], properties: { amount: { type: 'integer', minimum: 1 } } };
    const { agentId, runId, request } = await startAsking('[ask-answer]', { schema, notify: ['ops@example.test'], timeout_ms: 600_000 });
    expect(request).toEqual({
      request_id: expect.any(String),
      run_id: runId,
      agent_id: agentId,
      status: 'pending',
      input_id: 'q1',
      prompt: 'Go on?',
      schema,
      choices: null,
      notify: ['ops@example.test'],
      on_timeout: { action: 'fail' },
      created_at: expect.stringMatching(/Z$/),
      timeout_at: expect.stringMatching(/Z$/),
      answer: null,
      answered_at: null,
      answered_by: null,
    });
    const run = await getRun(agentId, runId);
    expect([run.status, run.is_finished]).toEqual(['in_progress', false]);
    const agent = (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent;
    expect(agent.latest_run_has_pending_input).toBe(true);
    const pending = await http(base, 'GET', '/v1/input-requests?status=pending', { key: KEY });
    expect(pending.body.input_requests.map((r: any) => r.request_id)).toContain(request.request_id);

    const answered = await answer(agentId, runId, request.request_id, { answer: { amount: 3 } });
    expect(answered.status).toBe(200);
    expect(answered.body.input_request).toMatchObject({
      status: 'answered',
      answer: { amount: 3 },
      answered_at: expect.stringMatching(/Z$/),
      answered_by: { kind: 'user', user_id: expect.any(String) },
    });
    const done = await finished(agentId, runId);
    expect([done.status, await givenTo(agentId, runId)]).toEqual(['completed', { answer: { amount: 3 }, state: { asked_in: runId } }]);
    const dispatches = runtime.dispatchesFor(runId);
    expect(dispatches.map((d) => d.body.protocol_version)).toEqual([3, 3]);
    expect(dispatches[1].body.continuation).toMatchObject({ input_id: 'q1', answer: { amount: 3 }, answered_by: { kind: 'user' } });
    const events = await eventsOf(agentId, runId);
    const kinds = events.map((e: object) => Object.keys(e)[0]);
    expect(kinds).toEqual(['started', 'step', 'waiting_for_input', 'input_answered', 'message', 'completed']);
    expect(events[2].waiting_for_input).toMatchObject({ request_id: request.request_id, prompt: 'Go on?' });
    expect(events[2].waiting_for_input).not.toHaveProperty('state');
    expect(events[3].input_answered).toMatchObject({ request_id: request.request_id, answer: { amount: 3 }, answered_by: { kind: 'user' } });
    // Answered once: a second answer is a 409.
    expectProblem(await answer(agentId, runId, request.request_id, { answer: { amount: 4 } }), 409);
  });

  it('refuses an answer that breaks the schema with a 400 naming the field, and a missing or oversized one', async () => {
    const schema = { type: 'object', required: ['amount'], properties: { amount: { type: 'integer', minimum: 1 } } };
    const { agentId, runId, request } = await startAsking('[bad-answer]', { schema, timeout_ms: 600_000 });
    const bad = await answer(agentId, runId, request.request_id, { answer: { amount: 0 } });
    expectProblem(bad, 400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'answer.amount' })]);
    expectProblem(await answer(agentId, runId, request.request_id, {}), 400);
    expectProblem(await answer(agentId, runId, request.request_id, { answer: { amount: 1, pad: 'x'.repeat(70_000) } }), 413);
    expect((await requestsOf(agentId, runId)).body.input_requests[0].status).toBe('pending');
    expect((await answer(agentId, runId, request.request_id, { answer: { amount: 1 } })).status).toBe(200);
    expect((await finished(agentId, runId)).status).toBe('completed');
  });

  it('gives one 200 and one 409 to two answers at once, and the run is continued once', async () => {
    const { agentId, runId, request } = await startAsking('[race]', { choices: ['approve', 'reject'], timeout_ms: 600_000 });
    const results = await Promise.all([
      answer(agentId, runId, request.request_id, { answer: 'approve' }),
      answer(agentId, runId, request.request_id, { answer: 'reject' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)!.body.input_request.answer;
    await finished(agentId, runId);
    expect((await givenTo(agentId, runId)).answer).toBe(winner);
    expect(runtime.dispatchesFor(runId)).toHaveLength(2);
  });

  it("answers another user's request and run with a 404, and lists only the caller's own", async () => {
    const { agentId, runId, request } = await startAsking('[other-user]', { choices: ['approve', 'reject'], timeout_ms: 600_000 });
    expectProblem(await answer(agentId, runId, request.request_id, { answer: 'approve' }, other.key), 404);
    expectProblem(await requestsOf(agentId, runId, other.key), 404);
    const theirs = await http(base, 'GET', '/v1/input-requests?status=pending', { key: other.key });
    expect([theirs.status, theirs.body.input_requests]).toEqual([200, []]);
    expectProblem(await http(base, 'GET', '/v1/input-requests?status=waiting', { key: KEY }), 400);
    const mine = await http(base, 'GET', '/v1/input-requests', { key: KEY });
    expect(mine.body.input_requests.map((r: any) => r.request_id)).toContain(request.request_id);
    expect((await requestsOf(agentId, runId)).body.input_requests[0].status).toBe('pending');
    expect((await answer(agentId, runId, request.request_id, { answer: 'reject' })).status).toBe(200);
    await finished(agentId, runId);
    expect((await givenTo(agentId, runId)).answer).toBe('reject');
  });

  it.each([
    ['approve', { choices: ['approve', 'reject'], on_timeout: { action: 'approve' } }, 'approve'],
    ['reject', { choices: ['approve', 'reject'], on_timeout: { action: 'reject' } }, 'reject'],
    ['default', { schema: { type: 'integer' }, on_timeout: { action: 'default', answer: 7 } }, 7],
  ])('falls back to %s at the timeout, once, and the run goes on with that answer', async (action, question, given) => {
    const { agentId, runId, request } = await startAsking(`[timeout-${action}]`, { ...question, timeout_ms: 1000 });
    const done = await finished(agentId, runId);
    expect([done.status, (await givenTo(agentId, runId)).answer]).toEqual(['completed', given]);
    const [closed] = (await requestsOf(agentId, runId)).body.input_requests;
    expect(closed).toMatchObject({ request_id: request.request_id, status: 'timed_out', answer: given, answered_by: { kind: 'timeout' } });
    const kinds = (await eventsOf(agentId, runId)).map((e: object) => Object.keys(e)[0]);
    expect(kinds.filter((k: string) => k === 'input_timed_out')).toHaveLength(1);
    expect(runtime.dispatchesFor(runId)).toHaveLength(2);
    expectProblem(await answer(agentId, runId, request.request_id, { answer: given }), 409);
  });

  it('ends the run in error when the timeout falls back to fail', async () => {
    const { agentId, runId, request } = await startAsking('[timeout-fail]', { choices: ['approve', 'reject'], timeout_ms: 1000 });
    const done = await finished(agentId, runId);
    expect(done.status).toBe('error');
    const events = await eventsOf(agentId, runId);
    expect(events.at(-1).failed.error).toContain(`input request ${request.request_id} timed out`);
    expect((await requestsOf(agentId, runId)).body.input_requests[0].status).toBe('timed_out');
    expect(runtime.dispatchesFor(runId)).toHaveLength(1);
  });

  it('becomes paused past RUN_PAUSE_AFTER_MS while it waits, and in progress again once answered', async () => {
    const { agentId, runId, request } = await startAsking('[pause]', { choices: ['approve', 'reject'], timeout_ms: 600_000 });
    const paused = await eventually(`run ${runId} to pause`, () => getRun(agentId, runId), (r) => r.status === 'paused');
    expect(paused.is_paused).toBe(true);
    expect((await answer(agentId, runId, request.request_id, { answer: 'approve' })).status).toBe(200);
    expect((await finished(agentId, runId)).status).toBe('completed');
    const kinds = (await eventsOf(agentId, runId)).map((e: object) => Object.keys(e)[0]);
    expect(kinds.filter((k: string) => k === 'paused')).toHaveLength(1);
  });

  it('ends a waiting run that is cancelled, and voids its request: an answer is then a 409', async () => {
    const { agentId, runId, request } = await startAsking('[cancel]', { choices: ['approve', 'reject'], timeout_ms: 600_000 });
    const cancel = await http(base, 'POST', `/v1/agents/${agentId}/runs/${runId}/cancel`, { key: KEY, body: {} });
    expect(cancel.body).toEqual({ success: true, error: null });
    expect((await getRun(agentId, runId)).status).toBe('stopped');
    expect((await requestsOf(agentId, runId)).body.input_requests[0].status).toBe('void');
    expectProblem(await answer(agentId, runId, request.request_id, { answer: 'approve' }), 409);
    expect(runtime.dispatchesFor(runId)).toHaveLength(1);
  });

  it('ends a waiting run with its agent: the request is gone with it (404)', async () => {
    const { agentId, runId, request } = await startAsking('[delete-agent]', { choices: ['approve', 'reject'], timeout_ms: 600_000 });
    expect((await http(base, 'DELETE', `/v1/agents/${agentId}`, { key: KEY })).status).toBe(204);
    expectProblem(await answer(agentId, runId, request.request_id, { answer: 'approve' }), 404);
    const pending = await http(base, 'GET', '/v1/input-requests?status=pending', { key: KEY });
    expect(pending.body.input_requests.map((r: any) => r.request_id)).not.toContain(request.request_id);
  });

  it('holds no worker and no admission slot while it waits: with one of each, another run of the same user completes meanwhile', async () => {
    const { agentId, runId, request } = await startAsking('[holds-nothing]', { choices: ['approve', 'reject'], timeout_ms: 600_000 });
    const next = await http(base, 'POST', `/v1/agents/${agentId}/runs`, {
      key: KEY,
      body: { user_message: runtime.script('[meanwhile]', hang({ type: 'completed', outcome: 'success', summary: 'meanwhile' })), skip_deploy_check: true },
    });
    expect((await finished(agentId, next.body.run.run_id)).status).toBe('completed');
    expect((await getRun(agentId, runId)).is_finished).toBe(false);
    expect((await answer(agentId, runId, request.request_id, { answer: 'approve' })).status).toBe(200);
    expect((await finished(agentId, runId)).status).toBe('completed');
  });

  it('ends in error a run that asks past its user\'s QUOTA_PENDING_INPUT_REQUESTS_PER_USER, and leaves other users free to ask', async () => {
    const asked = [];
    for (let i = 0; i < 3; i++) asked.push(await startAsking(`[quota-${i}]`, { choices: ['approve', 'reject'], timeout_ms: 600_000 }));
    const agentId = await agentOf();
    const over = await http(base, 'POST', `/v1/agents/${agentId}/runs`, {
      key: KEY,
      body: { user_message: asking('[quota-over]', { choices: ['approve', 'reject'] }), skip_deploy_check: true },
    });
    const done = await finished(agentId, over.body.run.run_id);
    expect(done.status).toBe('error');
    expect((await eventsOf(agentId, over.body.run.run_id)).at(-1).failed.error).toContain('QUOTA_PENDING_INPUT_REQUESTS_PER_USER');
    // Another user's runs are not starved by this user's pending questions.
    const theirAgent = await agentOf(other.key);
    const theirs = await http(base, 'POST', `/v1/agents/${theirAgent}/runs`, {
      key: other.key,
      body: { user_message: asking('[quota-theirs]', { choices: ['approve', 'reject'] }), skip_deploy_check: true },
    });
    const theirRun = theirs.body.run.run_id;
    const listed = await eventually('their run to ask', () => requestsOf(theirAgent, theirRun, other.key), (r) => r.body.input_requests?.length === 1);
    expect(listed.body.input_requests[0].status).toBe('pending');
    for (const a of asked) expect((await answer(a.agentId, a.runId, a.request.request_id, { answer: 'approve' })).status).toBe(200);
  });

  it('falls back once per question with two runs-service replicas sweeping, and each run is continued once', async () => {
    const second = await startRunsService({ ...system.baseEnv(), ...runsEnv() });
    try {
      const asked = [];
      for (let i = 0; i < 3; i++) asked.push(await startAsking(`[replicas-${i}]`, { schema: { type: 'integer' }, on_timeout: { action: 'default', answer: i }, timeout_ms: 1000 }));
      for (const [i, { agentId, runId }] of asked.entries()) {
        expect((await finished(agentId, runId)).status).toBe('completed');
        expect((await givenTo(agentId, runId)).answer).toBe(i);
        const kinds = (await eventsOf(agentId, runId)).map((e: object) => Object.keys(e)[0]);
        expect(kinds.filter((k: string) => k === 'input_timed_out')).toHaveLength(1);
        expect(runtime.dispatchesFor(runId)).toHaveLength(2);
      }
    } finally {
      await second.close();
    }
  });

  // Last: it restarts every app of the system.
  it('keeps a question asked before every app restarts: answerable after it, exactly once, and the run goes on', async () => {
    const { agentId, runId, request } = await startAsking('[restart]', { choices: ['approve', 'reject'], timeout_ms: 600_000 });
    const apps = [...system.gateways, ...system.agents, system.others.runs!, system.others.scheduler!, system.others.webhooks!];
    await Promise.all(apps.map((app) => app.close()));
    const env = system.baseEnv();
    system.agents[0] = await startAgentsService({ ...env, BOOTSTRAP_API_KEY: KEY });
    system.others.runs = await startRunsService({ ...env, ...runsEnv() });
    system.others.scheduler = await startSchedulerService(env);
    system.others.webhooks = await startWebhooksService(env);
    system.gateways[0] = await system.startGateway();
    base = system.url();

    expect((await requestsOf(agentId, runId)).body.input_requests).toEqual([expect.objectContaining({ request_id: request.request_id, status: 'pending' })]);
    const results = await Promise.all(['approve', 'reject'].map((given) => answer(agentId, runId, request.request_id, { answer: given })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await finished(agentId, runId)).status).toBe('completed');
    expect(runtime.dispatchesFor(runId)).toHaveLength(2);
  });
});
