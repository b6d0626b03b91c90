import { INestApplication } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { startRunsService } from '../apps/runs-service/src/runs-service.app';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { Reply, TestRuntime, lines } from './support/test-runtime';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const PER_USER = 4;
const PER_AGENT = 2;
const FLOOD_AGENTS = 3;
const FLOOD_RUNS_PER_AGENT = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runtime dispatches held open until their message's gate opens: what is executing, seen from the runtime. */
class HeldRuns {
  readonly open = new Map<string, string>(); // run id -> agent id
  readonly dispatched = new Map<string, number>(); // run id -> dispatches
  private readonly gates = new Map<string, { opened: boolean; wait: Promise<void>; open: () => void }>();

  script(runtime: TestRuntime, message: string): string {
    let open!: () => void;
    const wait = new Promise<void>((resolve) => (open = resolve));
    this.gates.set(message, { opened: false, wait, open });
    return runtime.script(message, (reply, dispatch) => this.hold(reply, dispatch.body, message));
  }

  release(message: string): void {
    const gate = this.gates.get(message)!;
    gate.opened = true;
    gate.open();
  }

  private async hold(reply: Reply, body: { run_id: string; agent_id: string }, message: string): Promise<void> {
    this.dispatched.set(body.run_id, (this.dispatched.get(body.run_id) ?? 0) + 1);
    this.open.set(body.run_id, body.agent_id);
    reply.line({ type: 'step', title: 'holding' });
    await Promise.race([this.gates.get(message)!.wait, reply.closed]);
    this.open.delete(body.run_id);
    reply.line({ type: 'completed', outcome: 'success' });
    reply.end();
  }
}

/**
 * The most runs each user and each agent had executing at once (admitted, not finished: the
 * definition the limits apply to), sampled from PostgreSQL while the test runs, and every run
 * seen waiting while a newer run of its agent was admitted (oldest first is broken).
 */
class ExecutingSampler {
  readonly maxPerUser = new Map<string, number>();
  readonly maxPerAgent = new Map<string, number>();
  readonly overtaken = new Set<string>();
  private timer?: NodeJS.Timeout;
  private sampling?: Promise<void>;

  constructor(private readonly db: Pool) {}

  start(): void {
    this.timer = setInterval(() => {
      this.sampling ??= this.sample().finally(() => (this.sampling = undefined));
    }, 20);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sampling;
  }

  private async sample(): Promise<void> {
    const { rows } = await this.db.query<{ user_id: string; agent_id: string; n: number }>(
      'SELECT user_id, agent_id, count(*)::int AS n FROM runs WHERE admitted_at IS NOT NULL AND NOT is_finished GROUP BY 1, 2',
    );
    const perUser = new Map<string, number>();
    for (const row of rows) {
      perUser.set(row.user_id, (perUser.get(row.user_id) ?? 0) + row.n);
      this.maxPerAgent.set(row.agent_id, Math.max(this.maxPerAgent.get(row.agent_id) ?? 0, row.n));
    }
    for (const [user, n] of perUser) this.maxPerUser.set(user, Math.max(this.maxPerUser.get(user) ?? 0, n));
    const overtaken = await this.db.query<{ id: string }>(
      `SELECT w.id FROM runs w WHERE w.admitted_at IS NULL AND NOT w.is_finished
          AND EXISTS (SELECT 1 FROM runs a WHERE a.agent_id = w.agent_id AND a.admitted_at IS NOT NULL AND a.run_number > w.run_number)`,
    );
    for (const row of overtaken.rows) this.overtaken.add(row.id);
  }
}

/**
 * Fair execution (docs/quotas-and-limits.md, "Executing runs"): a user's runs execute at most
 * RUN_CONCURRENCY_PER_USER at once, an agent's at most RUN_CONCURRENCY_PER_AGENT, across two
 * runs-service replicas; the rest wait, oldest first, and a flood of one user delays no other's.
 */
describe('Fair execution of runs', () => {
  let runtime: TestRuntime;
  let system: TestSystem;
  let secondRuns: INestApplication;
  let db: Pool;
  let sampler: ExecutingSampler;
  let base: string;
  let mallory: User;
  let bob: User;
  const held = new HeldRuns();

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    runtime.handler = lines({ type: 'completed', outcome: 'success' });
    const runsEnv = {
      AGENT_RUNTIME_URL: runtime.url,
      RUN_CONCURRENCY_PER_USER: String(PER_USER),
      RUN_CONCURRENCY_PER_AGENT: String(PER_AGENT),
    };
    system = await TestSystem.start({ runsEnv });
    secondRuns = await startRunsService({ ...system.baseEnv(), ...runsEnv });
    base = system.url();
    [mallory, bob] = [await freshUser(system, 'mallory'), await freshUser(system, 'bob')];
    db = observerPool(system.infra.databaseUrl, 'runs');
    sampler = new ExecutingSampler(db);
    sampler.start();
  });
  afterAll(async () => {
    await sampler?.stop();
    await db?.end();
    await secondRuns?.close();
    await system?.stop();
    await runtime?.close();
  });

  const newAgent = async (user: User) => (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id as string;

  async function start(user: User, agentId: string, message: string): Promise<string> {
    const res = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { user_message: message, skip_deploy_check: true } });
    expect(res.status).toBe(201);
    return res.body.run.run_id;
  }

  const getRun = async (user: User, agentId: string, runId: string) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: user.key })).body.run;
  const eventsOf = async (user: User, agentId: string, runId: string) =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: user.key })).body.events.map((e: { event: object }) => e.event);

  const openOf = (agents: string[]) => [...held.open.values()].filter((agent) => agents.includes(agent)).length;

  it("runs a flood of one user's runs at most its limits at a time, oldest first, while another user's run starts at once", async () => {
    const flood = held.script(runtime, 'flood');
    const agents = await Promise.all(Array.from({ length: FLOOD_AGENTS }, () => newAgent(mallory)));
    const runs: Array<{ agentId: string; runId: string }> = [];
    for (let i = 0; i < FLOOD_AGENTS * FLOOD_RUNS_PER_AGENT; i += 10) {
      const batch = Array.from({ length: 10 }, (_, j) => agents[(i + j) % FLOOD_AGENTS]);
      runs.push(...(await Promise.all(batch.map(async (agentId) => ({ agentId, runId: await start(mallory, agentId, flood) })))));
    }
    await eventually(`${PER_USER} of mallory's runs dispatched`, () => openOf(agents), (n) => n === PER_USER);
    await sleep(1500); // two sweeps of each replica: none of them admits more
    expect(openOf(agents)).toBe(PER_USER);

    // A run of another user starts at once: it does not queue behind the flood.
    const bobAgent = await newAgent(bob);
    const sentAt = Date.now();
    const bobRun = await start(bob, bobAgent, 'quick');
    await eventually('bob\'s run dispatched', () => runtime.dispatchesFor(bobRun).length, (n) => n === 1, 5000);
    expect(Date.now() - sentAt).toBeLessThan(2000);
    expect(openOf(agents)).toBe(PER_USER);
    expect((await eventsOf(bob, bobAgent, bobRun))[0]).toEqual({ started: {} });

    // The oldest runs went first: each agent's first ones (the sampler checks this all along).
    const { rows: admitted } = await db.query<{ agent_id: string; numbers: number[] }>(
      `SELECT agent_id, array_agg(run_number ORDER BY run_number) AS numbers FROM runs
        WHERE agent_id = ANY($1::uuid[]) AND admitted_at IS NOT NULL GROUP BY agent_id`,
      [agents],
    );
    expect(admitted.reduce((sum, row) => sum + row.numbers.length, 0)).toBe(PER_USER);
    for (const row of admitted) expect(row.numbers).toEqual(row.numbers.map((_, i) => i + 1));

    // A waiting run looks as a queued run always has; cancelled or deleted, it behaves as before and never executes.
    const waiting = runs.filter((r) => !held.dispatched.has(r.runId));
    const [toCancel, toDelete] = [waiting[waiting.length - 1], waiting[waiting.length - 2]];
    expect(await getRun(mallory, toCancel.agentId, toCancel.runId)).toMatchObject({ status: 'in_progress', is_finished: false, event_count: 0 });
    const cancel = await http(base, 'POST', `/v1/agents/${toCancel.agentId}/runs/${toCancel.runId}/cancel`, { key: mallory.key, body: { reason: 'not now' } });
    expect(cancel.body).toEqual({ success: true, error: null });
    expect(await getRun(mallory, toCancel.agentId, toCancel.runId)).toMatchObject({ status: 'stopped', is_finished: true });
    expect(await eventsOf(mallory, toCancel.agentId, toCancel.runId)).toEqual([{ stopped: { reason: 'not now' } }]);
    expect((await http(base, 'DELETE', `/v1/agents/${toDelete.agentId}/runs/${toDelete.runId}`, { key: mallory.key })).status).toBe(204);
    expect((await http(base, 'GET', `/v1/agents/${toDelete.agentId}/runs/${toDelete.runId}`, { key: mallory.key })).status).toBe(404);

    // Once the flood's runs end, the waiting ones follow, and every one runs once.
    held.release(flood);
    const rest = runs.filter((r) => r !== toCancel && r !== toDelete);
    await eventually(
      'every run of the flood finished',
      async () => (await Promise.all(rest.map((r) => getRun(mallory, r.agentId, r.runId)))).filter((run) => !run.is_finished).length,
      (unfinished) => unfinished === 0,
      60_000,
    );
    for (const r of rest) expect(held.dispatched.get(r.runId)).toBe(1);
    expect(held.dispatched.has(toCancel.runId)).toBe(false);
    expect(held.dispatched.has(toDelete.runId)).toBe(false);
    const statuses = new Set((await Promise.all(rest.map((r) => getRun(mallory, r.agentId, r.runId)))).map((run) => run.status));
    expect([...statuses]).toEqual(['completed']);

    await sampler.stop();
    expect(sampler.maxPerUser.get(mallory.userId)).toBe(PER_USER);
    for (const agentId of agents) expect(sampler.maxPerAgent.get(agentId)).toBeLessThanOrEqual(PER_AGENT);
    expect([...sampler.overtaken]).toEqual([]);
    sampler.start();

    // Each job's priority: 1 + its user's executing runs when it was admitted (first when workers are scarce).
    const connection = new Redis(system.infra.redisUrl, { maxRetriesPerRequest: null });
    const queue = new Queue(QueueNames.RunsExecution, { connection, prefix: system.infra.redisPrefix });
    try {
      const jobs = await queue.getJobs(['completed']);
      const priorityOf = (runId: string) => jobs.find((job) => job.data.run_id === runId)?.opts.priority;
      expect(priorityOf(bobRun)).toBe(1);
      const floodPriorities = rest.map((r) => priorityOf(r.runId)!);
      expect(Math.min(...floodPriorities)).toBe(1);
      expect(Math.max(...floodPriorities)).toBe(PER_USER);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  });

  it("admits a trigger's run the same way: it waits while its user is at the limit, and starts when a run ends", async () => {
    const busy = held.script(runtime, 'busy');
    const triggered = held.script(runtime, 'triggered');
    const agents = [await newAgent(mallory), await newAgent(mallory)];
    const build = await http(base, 'POST', `/v1/agents/${agents[0]}/runs`, { key: mallory.key, body: { run_mode: 'build' } });
    expect(build.status).toBe(201);
    await eventually('agent deployed', () => getRun(mallory, agents[0], build.body.run.run_id), (run) => run.is_finished);
    const hook = await http(base, 'POST', `/v1/agents/${agents[0]}/triggers`, {
      key: mallory.key,
      body: { kind: 'webhook', name: 'inbound', message_template: triggered },
    });
    expect(hook.status).toBe(201);

    const busyRuns = [];
    for (let i = 0; i < PER_USER; i++) busyRuns.push({ agentId: agents[i % 2], runId: await start(mallory, agents[i % 2], busy) });
    await eventually('mallory at her limit', () => openOf(agents), (n) => n === PER_USER);
    const call = await http(base, 'POST', new URL(hook.body.url).pathname, {
      rawBody: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(call.status).toBe(202);
    const runId = call.body.run_id;
    await sleep(1500);
    expect(held.dispatched.has(runId)).toBe(false);
    expect(await getRun(mallory, agents[0], runId)).toMatchObject({ run_kind: 'webhook', event_count: 0, is_finished: false });

    // One run of the other agent ends: agent 0 is still at its limit, so the triggered run keeps waiting.
    const cancelled = await http(base, 'POST', `/v1/agents/${agents[1]}/runs/${busyRuns[1].runId}/cancel`, { key: mallory.key, body: {} });
    expect(cancelled.body).toEqual({ success: true, error: null });
    await sleep(1500);
    expect(held.dispatched.has(runId)).toBe(false);
    // One of agent 0's ends: the triggered run starts.
    await http(base, 'POST', `/v1/agents/${agents[0]}/runs/${busyRuns[0].runId}/cancel`, { key: mallory.key, body: {} });
    await eventually('the triggered run dispatched', () => held.dispatched.get(runId) ?? 0, (n) => n === 1, 5000);

    held.release(busy);
    held.release(triggered);
    await eventually('the triggered run finished', () => getRun(mallory, agents[0], runId), (run) => run.status === 'completed');
    await sampler.stop();
    expect(sampler.maxPerUser.get(mallory.userId)).toBe(PER_USER);
    for (const agentId of agents) expect(sampler.maxPerAgent.get(agentId)).toBeLessThanOrEqual(PER_AGENT);
  });
});
