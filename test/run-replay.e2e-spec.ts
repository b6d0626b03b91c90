import { Pool } from 'pg';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { TestRuntime, lines } from './support/test-runtime';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const VERSIONS_KEPT = 3;
const WAITING_PER_USER = 2;
const HOLD = 'hold this run';

/** POST …/runs/{run_id}/replay: a new run with its origin's input, on the version it ran or the current one (docs/decisions.md#replaying-a-run). */
describe('Run replay', () => {
  let runtime: TestRuntime;
  let system: TestSystem;
  let base: string;
  let db: Pool;
  let alice: User;
  let mallory: User;
  /** Runs with the HOLD message wait for this gate; a test that holds runs opens a new one and releases it. */
  let gate = { released: Promise.resolve(), release: () => undefined as void };
  const hold = (): (() => void) => {
    let release!: () => void;
    gate = { released: new Promise<void>((resolve) => (release = resolve)), release: () => release() };
    return gate.release;
  };

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    runtime.handler = lines({ type: 'completed', outcome: 'success' });
    // Held until a test releases them, so that they keep their user's executing and waiting runs full.
    runtime.script(HOLD, async (reply) => {
      await Promise.race([gate.released, reply.closed]);
      reply.line({ type: 'completed', outcome: 'success' });
      reply.end();
    });
    system = await TestSystem.start({
      agentsEnv: { QUOTA_INSTRUCTION_VERSIONS_KEPT: String(VERSIONS_KEPT) },
      runsEnv: {
        AGENT_RUNTIME_URL: runtime.url,
        AGENT_RUNTIME_SECRET: 'replay-runtime-secret-0123456789ab',
        QUOTA_WAITING_RUNS_PER_USER: String(WAITING_PER_USER),
        RUN_CONCURRENCY_PER_USER: '1',
      },
      gatewayEnv: { RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '10000' },
    });
    base = system.url();
    db = observerPool(system.infra.databaseUrl, 'runs');
    [alice, mallory] = [await freshUser(system, 'alice'), await freshUser(system, 'mallory')];
  });
  afterAll(async () => {
    gate.release();
    await db?.end();
    await system?.stop();
    await runtime?.close();
  });

  async function deployedAgent(user = alice): Promise<string> {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
    await finished(agentId, (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { run_mode: 'build' } })).body.run.run_id, user);
    await eventually(
      'agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: user.key })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    return agentId;
  }

  const getRun = async (agentId: string, runId: string, user = alice) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: user.key })).body.run;
  const finished = (agentId: string, runId: string, user = alice) =>
    eventually(`run ${runId} finished`, () => getRun(agentId, runId, user), (run) => run?.is_finished === true, 15_000);
  const putInstructions = async (agentId: string, content: string) =>
    expect((await http(base, 'PUT', `/v1/agents/${agentId}/instructions`, { key: alice.key, body: { content } })).status).toBe(200);
  const start = async (agentId: string, body: object = {}, user = alice) =>
    (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body })).body.run;
  const replay = (agentId: string, runId: string, body?: object, options: { user?: User; key?: string } = {}) =>
    http(base, 'POST', `/v1/agents/${agentId}/runs/${runId}/replay`, {
      key: (options.user ?? alice).key,
      body,
      headers: options.key === undefined ? {} : { 'idempotency-key': options.key },
    });
  const dispatchOf = (runId: string) => eventually(`run ${runId} dispatched`, async () => runtime.dispatchesFor(runId), (d) => d.length === 1).then(([d]) => d.body);
  const runsOf = async (agentId: string, query: string, user = alice) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs?${query}`, { key: user.key })).body.runs as Array<Record<string, any>>;
  const allRuns = async (query: string, user = alice) => (await http(base, 'GET', `/v1/runs?${query}`, { key: user.key })).body.runs as Array<Record<string, any>>;

  it('replays a run on the instructions version it ran after the instructions changed, and on the current one when asked', async () => {
    const agentId = await deployedAgent();
    await putInstructions(agentId, 'the old way');
    const origin = await finished(agentId, (await start(agentId, { user_message: 'do the thing' })).run_id);
    await putInstructions(agentId, 'the new way');
    const [newest] = (await http(base, 'GET', `/v1/agents/${agentId}/instructions/history`, { key: alice.key })).body.instruction_versions;

    const original = await replay(agentId, origin.run_id, { instructions: 'original' });
    expect(original.status).toBe(201);
    expect(original.body.run).toMatchObject({ agent_id: agentId, replay_of: origin.run_id, goal: 'do the thing', run_kind: 'api', status: 'in_progress' });
    expect(original.body.run.run_id).not.toBe(origin.run_id);
    expect((await dispatchOf(original.body.run.run_id)).instructions.content).toBe('the old way');
    expect(await finished(agentId, original.body.run.run_id)).toMatchObject({ status: 'completed', instructions_version_id: origin.instructions_version_id });

    const current = await replay(agentId, origin.run_id, { instructions: 'current' });
    expect(current.status).toBe(201);
    expect(await dispatchOf(current.body.run.run_id)).toMatchObject({ user_message: 'do the thing', instructions: { content: 'the new way' } });
    expect((await finished(agentId, current.body.run.run_id)).instructions_version_id).toBe(newest.id);

    // Without a body the replay runs the original version (docs/decisions.md).
    const byDefault = await replay(agentId, origin.run_id);
    expect(byDefault.status).toBe(201);
    expect((await dispatchOf(byDefault.body.run.run_id)).instructions.content).toBe('the old way');

    // The origin lists its replays, on the agent's list and across agents; the origin itself is not one.
    const replays = [byDefault, current, original].map((r) => r.body.run.run_id);
    expect((await runsOf(agentId, `filter_replay_of=${origin.run_id}`)).map((r) => r.run_id)).toEqual(replays);
    expect((await allRuns(`filter_replay_of=${origin.run_id}`)).map((r) => r.run_id)).toEqual(replays);
    expect((await http(base, 'GET', `/v1/agents/${agentId}/runs?filter_replay_of=${origin.run_id}`, { key: alice.key })).body.total_runs).toBe(3);
    expect((await getRun(agentId, origin.run_id)).replay_of).toBeNull();
    // A replay of a replay names its own origin.
    const again = await replay(agentId, original.body.run.run_id, { instructions: 'current' });
    expect(again.body.run.replay_of).toBe(original.body.run.run_id);
  });

  it('answers the same replay for the same Idempotency-Key, and a new one for another key', async () => {
    const agentId = await deployedAgent();
    const origin = await finished(agentId, (await start(agentId, { user_message: 'once' })).run_id);
    const first = await replay(agentId, origin.run_id, { instructions: 'current' }, { key: 'replay-key-1' });
    const repeat = await replay(agentId, origin.run_id, { instructions: 'current' }, { key: 'replay-key-1' });
    const other = await replay(agentId, origin.run_id, { instructions: 'current' }, { key: 'replay-key-2' });
    expect([first.status, repeat.status, other.status]).toEqual([201, 201, 201]);
    expect(repeat.body.run.run_id).toBe(first.body.run.run_id);
    expect(other.body.run.run_id).not.toBe(first.body.run.run_id);
    expect(await runsOf(agentId, `filter_replay_of=${origin.run_id}`)).toHaveLength(2);
    expectProblem(await replay(agentId, origin.run_id, {}, { key: 'bad key with spaces' }), 400);
  });

  it('refuses, with a 409 naming it, a replay of a version the versions-kept limit pruned; the current instructions still replay it', async () => {
    const agentId = await deployedAgent();
    await putInstructions(agentId, 'version one');
    const origin = await finished(agentId, (await start(agentId, { user_message: 'pruned later' })).run_id);
    for (let i = 2; i <= VERSIONS_KEPT + 1; i++) await putInstructions(agentId, `version ${i}`);

    const refused = await replay(agentId, origin.run_id, { instructions: 'original' });
    expectProblem(refused, 409);
    expect(refused.body.detail).toContain(`Instructions version ${origin.instructions_version_id} of agent ${agentId} was pruned`);
    expect(await runsOf(agentId, `filter_replay_of=${origin.run_id}`)).toEqual([]);
    const current = await replay(agentId, origin.run_id, { instructions: 'current' });
    expect(current.status).toBe(201);
    expect((await dispatchOf(current.body.run.run_id)).instructions.content).toBe(`version ${VERSIONS_KEPT + 1}`);
  });

  it('ends in error a replay whose pinned version was pruned after it was accepted', async () => {
    const agentId = await deployedAgent();
    await putInstructions(agentId, 'soon gone');
    const origin = await finished(agentId, (await start(agentId, { user_message: 'pinned' })).run_id);
    // The user's one executing run is held: the replay waits for admission while its version is pruned.
    const release = hold();
    const held = await start(agentId, { user_message: HOLD });
    await dispatchOf(held.run_id);
    const accepted = await replay(agentId, origin.run_id, { instructions: 'original' });
    expect(accepted.status).toBe(201);
    for (let i = 2; i <= VERSIONS_KEPT + 1; i++) await putInstructions(agentId, `later ${i}`);
    release();
    const run = await finished(agentId, accepted.body.run.run_id);
    expect(run.status).toBe('error');
    expect(runtime.dispatchesFor(run.run_id)).toEqual([]);
    const events = (await http(base, 'GET', `/v1/agents/${agentId}/runs/${run.run_id}/events`, { key: alice.key })).body.events;
    expect(events.map((e: { event: object }) => e.event)).toEqual([
      { failed: { error: `its instructions version ${origin.instructions_version_id} was pruned before the run started (QUOTA_INSTRUCTION_VERSIONS_KEPT)` } },
    ]);
  });

  it(`a replay counts against waiting_runs_per_user (${WAITING_PER_USER}) like a start: a 422 naming the quota`, async () => {
    const user = await freshUser(system, 'quota');
    const agentId = await deployedAgent(user);
    const origin = await finished(agentId, (await start(agentId, { user_message: 'to replay' }, user)).run_id, user);
    const release = hold();
    const holding = [];
    // One executes, WAITING_PER_USER wait for admission.
    for (let i = 0; i <= WAITING_PER_USER; i++) holding.push(await start(agentId, { user_message: HOLD }, user));
    expect(holding.every((run) => run?.run_id)).toBe(true);
    const refused = await replay(agentId, origin.run_id, { instructions: 'current' }, { user });
    expectProblem(refused, 422);
    expect(refused.body).toMatchObject({ type: 'urn:aas:problem:quota-exceeded', quota: 'waiting_runs_per_user', limit: WAITING_PER_USER });
    // Another user's replays are not starved by this user's full queue.
    const theirs = await deployedAgent();
    const theirOrigin = await finished(theirs, (await start(theirs, { user_message: 'mine' })).run_id);
    expect((await replay(theirs, theirOrigin.run_id, { instructions: 'current' })).status).toBe(201);
    release();
    for (const run of holding) await finished(agentId, run.run_id, user);
    expect((await replay(agentId, origin.run_id, { instructions: 'current' }, { user })).status).toBe(201);
  });

  it("a second user cannot replay, nor list the replays of, the first user's run: 404, and an empty list", async () => {
    const agentId = await deployedAgent();
    const origin = await finished(agentId, (await start(agentId, { user_message: 'private' })).run_id);
    expect((await replay(agentId, origin.run_id, { instructions: 'current' })).status).toBe(201);
    const theirAgent = await deployedAgent(mallory);
    expectProblem(await replay(agentId, origin.run_id, {}, { user: mallory }), 404);
    expectProblem(await replay(theirAgent, origin.run_id, {}, { user: mallory }), 404);
    expectProblem(await replay(agentId, 'not-a-run', {}), 404);
    expect(await allRuns(`filter_replay_of=${origin.run_id}`, mallory)).toEqual([]);
    expect(await runsOf(theirAgent, `filter_replay_of=${origin.run_id}`, mallory)).toEqual([]);
    expect(await runsOf(agentId, `filter_replay_of=${origin.run_id}`)).toHaveLength(1);
  });

  it('validates the body and the filters: 400 Problem Details', async () => {
    const agentId = await deployedAgent();
    const origin = await finished(agentId, (await start(agentId)).run_id);
    expectProblem(await replay(agentId, origin.run_id, { instructions: 'yesterday' }), 400);
    expectProblem(await replay(agentId, origin.run_id, { instructions: 'current', extra: true }), 400);
    expectProblem(await http(base, 'GET', `/v1/agents/${agentId}/runs?filter_replay_of=nope`, { key: alice.key }), 400);
    expectProblem(await http(base, 'GET', '/v1/runs?filter_source_run_id=nope', { key: alice.key }), 400);
  });

  it("replays an inbound call's run with its kept payload, as the API's run; once its input is gone the replay is a 409", async () => {
    const agentId = await deployedAgent();
    const created = await http(base, 'POST', `/v1/agents/${agentId}/triggers`, { key: alice.key, body: { kind: 'webhook', name: 'inbound' } });
    const payload = { order: 42 };
    const call = await http(base, 'POST', new URL(created.body.url).pathname, {
      rawBody: JSON.stringify(payload),
      headers: { 'content-type': 'application/json', 'x-github-delivery': 'delivery-1' },
    });
    expect(call.status).toBe(202);
    const origin = await finished(agentId, call.body.run_id);

    const replayed = await replay(agentId, origin.run_id, { instructions: 'current' });
    expect(replayed.status).toBe(201);
    expect(replayed.body.run).toMatchObject({
      run_kind: 'api',
      trigger_id: created.body.trigger_id,
      webhook_subscription_id: null,
      trigger_data: origin.trigger_data,
      replay_of: origin.run_id,
    });
    const dispatch = await dispatchOf(replayed.body.run.run_id);
    expect(dispatch).toMatchObject({ trigger_kind: 'webhook', trigger: { kind: 'webhook', trigger_id: created.body.trigger_id, depth: 0, payload } });
    expect((await runsOf(agentId, 'filter_trigger_kind=webhook')).map((r) => r.run_id)).toContain(replayed.body.run.run_id);
    // The replay took no inbound delivery: the same delivery id still answers the first run.
    const redelivered = await http(base, 'POST', new URL(created.body.url).pathname, {
      rawBody: JSON.stringify(payload),
      headers: { 'content-type': 'application/json', 'x-github-delivery': 'delivery-1' },
    });
    expect(redelivered.body.run_id).toBe(origin.run_id);

    // Its input no longer kept (as retention would leave it): a 409 naming what is gone.
    await db.query('UPDATE runs SET trigger_data = NULL WHERE id = $1', [origin.run_id]);
    const gone = await replay(agentId, origin.run_id, { instructions: 'current' });
    expectProblem(gone, 409);
    expect(gone.body.detail).toBe(`The input of run ${origin.run_id} is gone (its trigger data is no longer kept): it cannot be replayed`);
  });

  it('links a run started by an event trigger to its source run, and the source run lists the runs it started', async () => {
    const [a, b] = [await deployedAgent(), await deployedAgent()];
    const trigger = await http(base, 'POST', `/v1/agents/${b}/triggers`, { key: alice.key, body: { kind: 'event', source_agent_id: a, events: ['run.completed'] } });
    expect(trigger.status).toBe(201);
    const source = (await start(a, { user_message: 'source' })).run_id;
    const [started] = await eventually('B started by A', () => runsOf(b, 'filter_trigger_kind=event'), (r) => r.length === 1);
    expect(started).toMatchObject({ run_kind: 'event', source_run_id: source, replay_of: null });
    expect((await runsOf(b, `filter_source_run_id=${source}`)).map((r) => r.run_id)).toEqual([started.run_id]);
    expect((await allRuns(`filter_source_run_id=${source}`)).map((r) => r.run_id)).toEqual([started.run_id]);
    expect(await runsOf(a, `filter_source_run_id=${source}`)).toEqual([]);
    expect((await getRun(a, source)).source_run_id).toBeNull();
    expect(await allRuns(`filter_source_run_id=${source}`, mallory)).toEqual([]);
    // A replay of the triggered run is the API's: it starts no chain from its source.
    const replayed = await replay(b, started.run_id, { instructions: 'current' });
    expect(replayed.body.run).toMatchObject({ run_kind: 'api', trigger_id: started.trigger_id, source_run_id: null, replay_of: started.run_id });
    expect((await dispatchOf(replayed.body.run.run_id)).trigger).toMatchObject({ kind: 'event', source_run: { run_id: source } });
  });
});
