import { expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { freshUser } from './support/test-users';

const KEY = 'stream-bootstrap-key-0123456789ab';

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads a whole SSE response (the server ends it after the `end` event). */
async function readStream(url: string, headers: Record<string, string>): Promise<{ status: number; type: string | null; events: SseEvent[] }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.trim() && !block.startsWith(':'))
    .map((block) =>
      Object.fromEntries(
        block.split('\n').map((line) => {
          const i = line.indexOf(': ');
          return [line.slice(0, i), line.slice(i + 2)];
        }),
      ) as SseEvent,
    );
  return { status: response.status, type: response.headers.get('content-type'), events };
}

describe('Run event stream (SSE) and Idempotency-Key', () => {
  let system: TestSystem;
  let base: string;

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { BUILTIN_RUNTIME_STEP_MS: '150' } });
    base = system.url();
  });
  afterAll(() => system.stop());

  async function agentWithSteps(count: number): Promise<string> {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    const plan_steps = Array.from({ length: count }, (_, order) => ({ title: `s${order}`, description: '', tools: [], order }));
    await http(base, 'PUT', `/v1/agents/${agentId}/instructions`, { key: KEY, body: { content: 'c', plan_steps } });
    return agentId;
  }

  it('streams every event of a live run in order, then ends; resumes after Last-Event-ID', async () => {
    const agentId = await agentWithSteps(4);
    const runId = (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } })).body.run
      .run_id;
    const url = `${base}/v1/agents/${agentId}/runs/${runId}/events/stream`;

    const live = await readStream(url, { 'x-api-key': KEY });
    expect(live.status).toBe(200);
    expect(live.type).toMatch(/^text\/event-stream/);
    const runEvents = live.events.filter((e) => e.event === 'run_event');
    expect(runEvents.map((e) => Number(e.id))).toEqual(runEvents.map((_, i) => i));
    expect(JSON.parse(runEvents[0].data!)).toMatchObject({ event_index: 0, event: { started: {} } });
    expect(JSON.parse(runEvents[runEvents.length - 1].data!).event).toHaveProperty('completed');
    expect(live.events[live.events.length - 1].event).toBe('end');

    const recorded = (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: KEY })).body;
    expect(runEvents.map((e) => JSON.parse(e.data!))).toEqual(recorded.events);

    const resumed = await readStream(url, { 'x-api-key': KEY, 'last-event-id': '2' });
    expect(resumed.events.filter((e) => e.event === 'run_event').map((e) => Number(e.id))).toEqual(
      runEvents.slice(3).map((e) => Number(e.id)),
    );
  });

  it('answers errors before streaming as Problem Details', async () => {
    const agentId = await agentWithSteps(1);
    const runId = (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } })).body.run
      .run_id;
    const path = `/v1/agents/${agentId}/runs/${runId}/events/stream`;
    expectProblem(await http(base, 'GET', path, { key: KEY, headers: { 'last-event-id': 'abc' } }), 400);
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/runs/00000000-0000-4000-8000-000000000000/events/stream`, { key: KEY }), 404);
    expectProblem(await http(base, 'GET', path), 401);
  });

  it('returns the same run for a repeated Idempotency-Key, also under concurrency', async () => {
    const agentId = await agentWithSteps(1);
    const start = (key: string) =>
      http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true }, headers: { 'idempotency-key': key } });
    const first = await start('order-1');
    const again = await start('order-1');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.run.run_id).toBe(first.body.run.run_id);

    const concurrent = await Promise.all(Array.from({ length: 8 }, () => start('order-2')));
    expect(new Set(concurrent.map((r) => r.body.run.run_id)).size).toBe(1);
    expect(concurrent.map((r) => r.status)).toEqual(Array(8).fill(201));

    const other = await start('order-3');
    expect(other.body.run.run_id).not.toBe(first.body.run.run_id);
    const list = (await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY })).body;
    expect(list.total_runs).toBe(3);
  });

  it("keeps two users' equal Idempotency-Keys apart when their starts arrive together (one transaction may accept both)", async () => {
    const users = [{ key: KEY }, await freshUser(system, 'same-key')];
    const agents = await Promise.all(
      users.map(async ({ key }) => (await http(base, 'POST', '/v1/agents', { key, body: {} })).body.agent.agent_id as string),
    );
    const start = (i: number) =>
      http(base, 'POST', `/v1/agents/${agents[i]}/runs`, { key: users[i].key, body: { skip_deploy_check: true }, headers: { 'idempotency-key': 'retry-1' } });
    const answers = await Promise.all(Array.from({ length: 16 }, (_, n) => start(n % 2)));
    expect(answers.map((r) => r.status)).toEqual(Array(16).fill(201));
    const runsOf = (i: number) => new Set(answers.filter((_, n) => n % 2 === i).map((r) => `${r.body.run.agent_id}/${r.body.run.run_id}`));
    expect([runsOf(0).size, runsOf(1).size]).toEqual([1, 1]);
    expect([...runsOf(0)][0].startsWith(agents[0])).toBe(true);
    expect([...runsOf(1)][0].startsWith(agents[1])).toBe(true);
  });

  it('answers one agent and refuses the other when one key is used for two agents at once', async () => {
    const [a, b] = [await agentWithSteps(1), await agentWithSteps(1)];
    const start = (agentId: string) =>
      http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true }, headers: { 'idempotency-key': 'raced-key' } });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, n) => start(n % 2 === 0 ? a : b)));
    const created = answers.filter((r) => r.status === 201);
    expect(new Set(created.map((r) => r.body.run.run_id)).size).toBe(1);
    const winner = created[0].body.run.agent_id;
    answers.forEach((r, n) => expect(r.status).toBe((n % 2 === 0 ? a : b) === winner ? 201 : 409));
  });

  it('refuses an Idempotency-Key reused for another agent, and a malformed key', async () => {
    const a = await agentWithSteps(1);
    const b = await agentWithSteps(1);
    const start = (agentId: string, key: string) =>
      http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true }, headers: { 'idempotency-key': key } });
    expect((await start(a, 'shared-key')).status).toBe(201);
    expectProblem(await start(b, 'shared-key'), 409);
    expectProblem(await start(a, 'x'.repeat(256)), 400);
  });
});
