import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { eventually } from './support/eventually';
import { HttpResult, expectProblem, http } from './support/http';
import { startRunsService } from '../apps/runs-service/src/runs-service.app';
import { observerPool } from './support/isolated-infra';
import { TestRuntime, lines } from './support/test-runtime';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const HOLD = 'hold this run';
const CHUNK = 20;
const MANY = 1000;

/**
 * POST /v1/bulk-actions (docs/bulk-actions.md): runs resolved once, cancelled or replayed a chunk at a
 * time with progress, aborted between runs, fair to another user's action, invisible to other users.
 * One run of a user executes at a time (RUN_CONCURRENCY_PER_USER=1) and holds, so the others wait unfinished.
 */
describe('Bulk actions', () => {
  let runtime: TestRuntime;
  let system: TestSystem;
  let base: string;
  let db: Pool;
  let alice: User;
  let bob: User;
  let release: () => void = () => undefined;
  /** Alice's agent of the 1,000 cancelled runs. */
  let cancelledAgent: string;
  const held = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    runtime.handler = lines({ type: 'completed', outcome: 'success' });
    runtime.script(HOLD, async (reply) => {
      await Promise.race([held, reply.closed]);
      reply.line({ type: 'completed', outcome: 'success' });
      reply.end();
    });
    system = await TestSystem.start({
      runsEnv: runsEnv(),
      gatewayEnv: { RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '10000', RATE_LIMIT_REQUESTS: '100000' },
    });
    base = system.url();
    db = observerPool(system.infra.databaseUrl, 'runs');
    [alice, bob] = [await freshUser(system, 'alice'), await freshUser(system, 'bob')];
  }, 120_000);
  afterAll(async () => {
    release();
    await db?.end();
    await system?.stop();
    await runtime?.close();
  });

  const runsEnv = () => ({
    AGENT_RUNTIME_URL: runtime.url,
    AGENT_RUNTIME_SECRET: 'bulk-runtime-secret-0123456789abcd',
    RUN_CONCURRENCY_PER_USER: '1',
    BULK_ACTION_CHUNK_SIZE: String(CHUNK),
    QUOTA_BULK_ACTION_RUNS: String(MANY),
  });

  const getRun = async (agentId: string, runId: string, user: User) => (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: user.key })).body.run;
  const finished = (agentId: string, runId: string, user: User) =>
    eventually(`run ${runId} finished`, () => getRun(agentId, runId, user), (run) => run?.is_finished === true, 15_000);

  async function deployedAgent(user: User): Promise<string> {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
    await finished(agentId, (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { run_mode: 'build' } })).body.run.run_id, user);
    return agentId;
  }

  /** `count` runs of the agent, `parallel` starts at a time; answers their ids. */
  async function startRuns(agentId: string, user: User, count: number, body: object = { user_message: HOLD }, parallel = 25): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i += parallel) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(parallel, count - i) }, () => http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { ...body, skip_deploy_check: true } })),
      );
      for (const started of batch) {
        expect(started.status).toBe(201);
        ids.push(started.body.run.run_id);
      }
    }
    return ids;
  }

  const create = (user: User, body: object, idempotencyKey?: string) =>
    http(base, 'POST', '/v1/bulk-actions', { key: user.key, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });
  const getAction = (user: User, id: string) => http(base, 'GET', `/v1/bulk-actions/${id}`, { key: user.key });
  const ended = (user: User, id: string, timeout = 120_000) =>
    eventually(`bulk action ${id} ended`, async () => (await getAction(user, id)).body.bulk_action, (a) => a && !['queued', 'running'].includes(a.status), timeout);
  /** Read from the database: while runs-service is down, the gateway cannot answer. */
  const getActionRow = async (id: string) => (await db.query(`SELECT * FROM bulk_actions WHERE id = $1`, [id])).rows[0];
  const statuses = async (agentId: string): Promise<Record<string, number>> => {
    const rows: Array<{ status: string; n: number }> = await db.query(`SELECT status, count(*)::int AS n FROM runs WHERE agent_id = $1 AND run_mode = 'run' GROUP BY status`, [agentId]).then((r) => r.rows);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  };

  function expectQuotaExceeded(res: HttpResult, quota: string, limit: number): void {
    expectProblem(res, 422);
    expect(res.body).toMatchObject({ type: 'urn:aas:problem:quota-exceeded', quota, limit });
    expect(res.body.detail).toContain(quota);
  }

  it('refuses bad requests with 400 Problem Details', async () => {
    const runId = '00000000-0000-4000-8000-000000000000';
    expectProblem(await create(alice, { action: 'cancel' }), 400);
    expectProblem(await create(alice, { action: 'cancel', filter: {}, run_ids: [runId] }), 400);
    expectProblem(await create(alice, { action: 'delete', filter: {} }), 400);
    expect((await create(alice, { action: 'delete', filter: {} })).body.detail).toContain('not supported yet');
    expectProblem(await create(alice, { action: 'cancel', run_ids: ['not-a-uuid'] }), 400);
    expectProblem(await create(alice, { action: 'cancel', run_ids: [] }), 400);
    expectProblem(await create(alice, { action: 'cancel', filter: { filter_status: 'sleeping' } }), 400);
    expectProblem(await create(alice, { action: 'replay', filter: {}, instructions: 'yesterday' }), 400);
    expectProblem(await getAction(alice, 'not-a-uuid'), 404);
  });

  it(`cancels ${MANY} waiting runs with visible progress, while another user's action goes ahead and that user cannot see or abort it`, async () => {
    const [aliceAgent, bobAgent] = [await deployedAgent(alice), await deployedAgent(bob)];
    cancelledAgent = aliceAgent;
    await startRuns(aliceAgent, alice, MANY);
    const bobRuns = await startRuns(bobAgent, bob, 5);
    const bobOther = (await startRuns(bobAgent, bob, 1))[0];

    const created = await create(alice, { action: 'cancel', filter: { filter_agent_id: aliceAgent, filter_status: 'in_progress' } });
    expect(created.status).toBe(202);
    expect(created.body.bulk_action).toMatchObject({ action: 'cancel', status: 'queued', matched: MANY, done: 0, pending: MANY, instructions: null, finished_at: null });
    expect(created.body.bulk_action.filter).toEqual({ filter_agent_id: aliceAgent, filter_status: 'in_progress' });
    const id = created.body.bulk_action.bulk_action_id;
    const bobs = await create(bob, { action: 'cancel', run_ids: bobRuns });
    expect(bobs.body.bulk_action.matched).toBe(5);

    // Bob's small action is not stuck behind Alice's big one: it finishes while hers is still under way.
    const bobDone = await ended(bob, bobs.body.bulk_action.bulk_action_id, 30_000);
    expect(bobDone).toMatchObject({ status: 'completed', done: 5, failed: 0, skipped: 0, pending: 0 });
    const meanwhile = (await getAction(alice, id)).body.bulk_action;
    expect(meanwhile.status).not.toBe('completed');
    const progress = await eventually('progress visible', async () => (await getAction(alice, id)).body.bulk_action, (a) => a.status === 'running' && a.done > 0 && a.done < MANY);
    expect(progress.pending).toBe(MANY - progress.done - progress.failed - progress.skipped);

    // Bob can neither see nor abort Alice's action, nor list it; his other run is untouched.
    expectProblem(await getAction(bob, id), 404);
    expectProblem(await http(base, 'POST', `/v1/bulk-actions/${id}/abort`, { key: bob.key }), 404);
    expect((await http(base, 'GET', '/v1/bulk-actions', { key: bob.key })).body.bulk_actions.map((a: { bulk_action_id: string }) => a.bulk_action_id)).not.toContain(id);

    const done = await ended(alice, id);
    expect(done).toMatchObject({ status: 'completed', matched: MANY, done: MANY, failed: 0, skipped: 0, pending: 0 });
    expect(done.finished_at).toEqual(expect.any(String));
    expect(await statuses(aliceAgent)).toEqual({ stopped: MANY });
    expect((await getRun(bobAgent, bobOther, bob)).status).toBe('in_progress');
    // Each cancelled run records the action in its stopped event.
    const [{ run_id: sample }] = await db.query(`SELECT run_id FROM bulk_action_runs WHERE bulk_action_id = $1 ORDER BY position DESC LIMIT 1`, [id]).then((r) => r.rows);
    const { events } = (await http(base, 'GET', `/v1/agents/${aliceAgent}/runs/${sample}/events`, { key: alice.key })).body;
    expect(events.map((e: { event: Record<string, unknown> }) => e.event)).toContainEqual({ stopped: { reason: `Cancelled by bulk action ${id}` } });
    expect((await http(base, 'GET', '/v1/bulk-actions', { key: alice.key })).body).toMatchObject({ total: 1, bulk_actions: [{ bulk_action_id: id, status: 'completed' }] });
    expectProblem(await http(base, 'POST', `/v1/bulk-actions/${id}/abort`, { key: alice.key }), 409);
    await http(base, 'POST', `/v1/agents/${bobAgent}/runs/${bobOther}/cancel`, { key: bob.key, body: {} });
  }, 300_000);

  it('aborts midway: the runs reached are cancelled, the rest untouched, and the action ends aborted', async () => {
    const agentId = await deployedAgent(alice);
    const total = 300;
    await startRuns(agentId, alice, total);
    const id = (await create(alice, { action: 'cancel', filter: { filter_agent_id: agentId } })).body.bulk_action.bulk_action_id;

    // The limits, while this action runs: over QUOTA_BULK_ACTION_RUNS nothing is created; a second
    // action is allowed, a third is not; Bob is not held back by Alice's limit.
    expectQuotaExceeded(await create(alice, { action: 'cancel', filter: {} }), 'bulk_action_runs', MANY);
    const second = await create(alice, { action: 'cancel', filter: { filter_agent_id: cancelledAgent, filter_status: 'stopped' } });
    expect(second.status).toBe(202);
    expect(second.body.bulk_action.matched).toBe(MANY);
    expectQuotaExceeded(await create(alice, { action: 'cancel', run_ids: [randomUUID()] }), 'active_bulk_actions_per_user', 2);
    const bobs = await create(bob, { action: 'cancel', run_ids: [randomUUID()] });
    expect(bobs.body.bulk_action).toMatchObject({ status: 'completed', matched: 0 });
    expect((await http(base, 'POST', `/v1/bulk-actions/${second.body.bulk_action.bulk_action_id}/abort`, { key: alice.key })).status).toBe(200);
    await eventually('first chunk done', async () => (await getAction(alice, id)).body.bulk_action, (a) => a.done >= CHUNK);
    const aborted = await http(base, 'POST', `/v1/bulk-actions/${id}/abort`, { key: alice.key });
    expect(aborted.status).toBe(200);
    expect(aborted.body.bulk_action.status).toBe('aborted');
    // At most the run in hand when the abort came is still finished; then nothing moves.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const final = (await getAction(alice, id)).body.bulk_action;
    expect(final.status).toBe('aborted');
    expect(final.done).toBeGreaterThanOrEqual(CHUNK);
    expect(final.done).toBeLessThan(total);
    expect(final.pending).toBe(total - final.done);
    expect(await statuses(agentId)).toEqual({ stopped: final.done, in_progress: total - final.done });
    const pages = await Promise.all([1, 2].map(async (page) => (await http(base, 'GET', `/v1/bulk-actions/${id}/runs?page_size=200&page=${page}`, { key: alice.key })).body));
    // The agent's build run matched too (the filter names no status): finished, it was skipped first.
    expect(pages[1]).toMatchObject({ total: total + 1, page: 2, page_size: 200 });
    const results = pages.flatMap((p) => p.runs.map((r: { result: string | null }) => r.result));
    expect(results).toHaveLength(total + 1);
    expect(results[0]).toBe('skipped');
    expect(results.filter((r) => r === 'done')).toHaveLength(final.done);
    expect(results.filter((r) => r === null)).toHaveLength(final.pending);
    expectProblem(await http(base, 'POST', `/v1/bulk-actions/${id}/abort`, { key: alice.key }), 409);
    // Tidy up for the next test: these runs would otherwise hold Alice's one execution slot.
    const rest = await create(alice, { action: 'cancel', filter: { filter_agent_id: agentId, filter_status: 'in_progress' } });
    expect((await ended(alice, rest.body.bulk_action.bulk_action_id)).done).toBe(total - final.done);
  }, 300_000);

  it('goes on where it stopped after runs-service restarts, each run reached once', async () => {
    const agentId = await deployedAgent(alice);
    const total = 200;
    await startRuns(agentId, alice, total);
    const id = (await create(alice, { action: 'cancel', filter: { filter_agent_id: agentId, filter_status: 'in_progress' } })).body.bulk_action.bulk_action_id;
    await eventually('under way', async () => (await getAction(alice, id)).body.bulk_action, (a) => a.done >= CHUNK);
    await system.others.runs!.close();
    const stoppedAt = (await getActionRow(id)).done;
    expect(stoppedAt).toBeLessThan(total);
    system.others.runs = await startRunsService({ ...system.baseEnv(), ...runsEnv() });
    const done = await ended(alice, id);
    // A run stopped just before the restart whose result was not yet written is found stopped again: skipped, never counted twice.
    expect(done).toMatchObject({ status: 'completed', matched: total, failed: 0, pending: 0 });
    expect(done.done + done.skipped).toBe(total);
    // The run executing when runs-service stopped (at most one: RUN_CONCURRENCY_PER_USER=1) ends in error, as any
    // run in flight at a shutdown does (it is never dispatched again); the action then finds it finished: skipped.
    const { stopped = 0, error = 0, ...others } = await statuses(agentId);
    expect(others).toEqual({});
    expect(error).toBeLessThanOrEqual(1);
    expect(stopped + error).toBe(total);
  }, 180_000);

  it('replays by filter, once per run for a repeated Idempotency-Key, through the acceptance path', async () => {
    release();
    const agentId = await deployedAgent(bob);
    const origins = await startRuns(agentId, bob, 3, { user_message: 'again' });
    for (const runId of origins) await finished(agentId, runId, bob);
    const body = { action: 'replay', filter: { filter_agent_id: agentId, filter_status: 'completed', filter_policy_group: 'runner' }, instructions: 'current' };
    const first = await create(bob, body, 'bulk-replay-1');
    const repeat = await create(bob, body, 'bulk-replay-1');
    expect(first.status).toBe(202);
    expect(repeat.body.bulk_action.bulk_action_id).toBe(first.body.bulk_action.bulk_action_id);
    expect(first.body.bulk_action).toMatchObject({ action: 'replay', matched: 3, instructions: 'current' });
    const done = await ended(bob, first.body.bulk_action.bulk_action_id, 30_000);
    expect(done).toMatchObject({ status: 'completed', done: 3, failed: 0 });
    const { body: results } = await http(base, 'GET', `/v1/bulk-actions/${first.body.bulk_action.bulk_action_id}/runs`, { key: bob.key });
    expect(results).toMatchObject({ total: 3, page: 1 });
    expect(results.runs.map((r: { run_id: string }) => r.run_id)).toEqual(origins);
    for (const origin of origins) {
      const replays = (await http(base, 'GET', `/v1/runs?filter_replay_of=${origin}`, { key: bob.key })).body.runs;
      expect(replays).toHaveLength(1);
      expect(replays[0]).toMatchObject({ replay_of: origin, goal: 'again' });
      expect(results.runs.find((r: { run_id: string }) => r.run_id === origin)).toMatchObject({ result: 'done', detail: null, result_run_id: replays[0].run_id });
    }
    expectProblem(await http(base, 'GET', `/v1/bulk-actions/${first.body.bulk_action.bulk_action_id}/runs`, { key: alice.key }), 404);
  }, 120_000);
});
