import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { http } from './support/http';
import { SseStream } from './support/sse';
import { TestSystem } from './support/test-system';
import { Dispatch, Reply, TestRuntime } from './support/test-runtime';
import { User, freshUser } from './support/test-users';

/**
 * Issue #25 item 1: once any surface reports a run finished (GET of the run, the run list, the SSE
 * `end`, a webhook delivery, an event trigger's start), what its end changes elsewhere is already
 * visible: no client sleeps or polls a second resource. Each effect is checked 100 times (a schedule's,
 * whose runs come at most once a second, SCHEDULED_TIMES), with no sleep between a run reading finished
 * and the reads that check it, while other runs are started continuously alongside (as bench:runs does).
 */
const KEY = 'e2e-bootstrap-key-read-your-writes-0123456789';
jest.setTimeout(120_000);
const TIMES = 100;
const LANES = 10; // users working at once, each its TIMES / LANES turns one after the other
/** Scheduled runs fire at most once a second per agent: fewer of them, from more agents at once. */
const SCHEDULED_TIMES = 100;
const SCHEDULED_AGENTS = 10;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('read-your-writes: a run reads finished only once its effects are visible', () => {
  let system: TestSystem;
  let runtime: TestRuntime;
  let base: string;
  /** What event-triggered runs' dispatches saw of their source agent when they arrived. */
  const seenAtTriggeredStart: Array<{ sourceRun: string; latestRunId: string; finished: boolean }> = [];
  /** The key of the owner of each agent, for the runtime's reads. */
  const owners = new Map<string, string>();
  let stopLoad = false;
  let load: Promise<number>;

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    runtime.handler = (reply, dispatch) => answer(reply, dispatch);
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      runsEnv: { AGENT_RUNTIME_URL: runtime.url, RUN_WORKER_CONCURRENCY: '60', RUN_CONCURRENCY_PER_USER: '20', RUN_CONCURRENCY_PER_AGENT: '10' },
      schedulerEnv: { SCHEDULE_AUTO_PAUSE_AFTER: '1000', RATE_LIMIT_TRIGGERED_RUNS: '0' },
      webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    base = system.url();
    load = startLoad(await freshUser(system, 'load'));
  });
  afterAll(async () => {
    stopLoad = true;
    const started = await load;
    expect(started).toBeGreaterThan(0);
    await system?.stop();
    await runtime?.close();
  });

  /**
   * The runtime: a build writes instructions naming its run and succeeds; a scheduled run fails; a run an
   * event trigger started first reads its source agent (what the start told the world); others succeed.
   */
  async function answer(reply: Reply, dispatch: Dispatch): Promise<void> {
    const body = dispatch.body;
    if (body.run_mode === 'build') reply.line({ type: 'instructions', content: `built by ${body.run_id}`, plan_steps: [] });
    if (body.trigger_kind === 'schedule') {
      reply.line({ type: 'failed', error: 'scheduled runs fail here' });
      return reply.end();
    }
    if (body.trigger?.kind === 'event') {
      const source = body.trigger.source_run;
      const agent = await getAgent(owners.get(source.agent_id)!, source.agent_id);
      seenAtTriggeredStart.push({ sourceRun: source.run_id, latestRunId: agent.latest_run_id, finished: agent.latest_run_is_finished });
    }
    reply.line({ type: 'completed', outcome: 'success', summary: 'ok' });
    reply.end();
  }

  /** bench:runs-style load: a caller starts runs of one agent back to back until the test ends. */
  async function startLoad(user: User): Promise<number> {
    const agentId = await createAgent(user);
    let started = 0;
    const caller = async () => {
      while (!stopLoad) {
        const res = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { user_message: 'load', skip_deploy_check: true } });
        if (res.status === 201) started++;
      }
    };
    await caller();
    return started;
  }

  async function createAgent(user: User): Promise<string> {
    const res = await http(base, 'POST', '/v1/agents', { key: user.key, body: {} });
    expect(res.status).toBe(201);
    owners.set(res.body.agent.agent_id, user.key);
    return res.body.agent.agent_id;
  }

  async function startRun(user: User, agentId: string, body: object): Promise<string> {
    const res = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body });
    expect(res.status).toBe(201);
    return res.body.run.run_id;
  }

  /** Reads the run until it reads finished: the one resource a client waits on. */
  async function untilFinished(user: User, agentId: string, runId: string): Promise<any> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await http(base, 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: user.key });
      expect(res.status).toBe(200);
      if (res.body.run.is_finished) return res.body.run;
      if (Date.now() > deadline) throw new Error(`run ${runId} did not finish: ${JSON.stringify(res.body.run)}`);
      await pause(10); // between reads of the run, never between its end and the reads that follow
    }
  }

  async function getAgent(key: string, agentId: string): Promise<any> {
    const res = await http(base, 'GET', `/v1/agents/${agentId}`, { key });
    expect(res.status).toBe(200);
    return res.body.agent;
  }

  /** `turn(user, i)` TIMES times in all: LANES users at once, each its turns one after another. */
  async function inLanes(label: string, prepare: (user: User) => Promise<unknown>, turn: (user: User, lane: any, i: number) => Promise<void>): Promise<void> {
    await Promise.all(
      Array.from({ length: LANES }, async (_, l) => {
        const user = await freshUser(system, `${label}-${l}`);
        const lane = await prepare(user);
        for (let i = 0; i < TIMES / LANES; i++) await turn(user, lane, i);
      }),
    );
  }

  it('a build run that reads completed has deployed its agent with its instructions: a schedule can be put on it at once', async () => {
    await inLanes(
      'build',
      async () => undefined,
      async (user) => {
        const agentId = await createAgent(user);
        const runId = await startRun(user, agentId, { run_mode: 'build' });
        expect((await untilFinished(user, agentId, runId)).status).toBe('completed');
        const agent = await getAgent(user.key, agentId);
        expect([agent.deployment_state, agent.latest_run_id, agent.latest_run_status]).toEqual(['deployed', runId, 'completed']);
        const instructions = await http(base, 'GET', `/v1/agents/${agentId}/instructions`, { key: user.key });
        expect(instructions.body.instructions).toMatchObject({ content: `built by ${runId}`, source_id: runId });
        const schedule = await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: user.key, body: { cron: '0 0 0 1 1 ? 2099' } });
        expect([schedule.status, schedule.body]).toEqual([200, { success: true, error: null }]);
      },
    );
  });

  it("a run that reads finished, in GET and in the run list, is its agent's latest run, finished", async () => {
    await inLanes(
      'latest',
      (user) => createAgent(user),
      async (user, agentId: string, i) => {
        const runId = await startRun(user, agentId, { user_message: `turn ${i}`, skip_deploy_check: true });
        await untilFinished(user, agentId, runId);
        const agent = await getAgent(user.key, agentId);
        expect([agent.latest_run_id, agent.latest_run_status, agent.latest_run_is_finished]).toEqual([runId, 'completed', true]);
        const list = await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: user.key });
        expect(list.body.runs[0]).toMatchObject({ run_id: runId, status: 'completed' });
      },
    );
  });

  it('a cancelled run that reads stopped is its agent\'s latest run, stopped', async () => {
    runtime.script('hold', async (reply) => {
      reply.line({ type: 'step', title: 'waiting' });
      await reply.closed;
    });
    await inLanes(
      'cancel',
      (user) => createAgent(user),
      async (user, agentId: string) => {
        const runId = await startRun(user, agentId, { user_message: 'hold', skip_deploy_check: true });
        const cancel = await http(base, 'POST', `/v1/agents/${agentId}/runs/${runId}/cancel`, { key: user.key, body: {} });
        expect(cancel.status).toBe(200);
        expect((await untilFinished(user, agentId, runId)).status).toBe('stopped');
        const agent = await getAgent(user.key, agentId);
        expect([agent.latest_run_id, agent.latest_run_status, agent.latest_run_is_finished]).toEqual([runId, 'stopped', true]);
      },
    );
  });

  it("an event trigger's last_triggered_at has moved, and its run was started after the source agent showed the end", async () => {
    const triggered = seenAtTriggeredStart.length;
    await inLanes(
      'trigger',
      async (user) => {
        const source = await createAgent(user);
        const follower = await createAgent(user);
        await untilFinished(user, follower, await startRun(user, follower, { run_mode: 'build' }));
        const res = await http(base, 'POST', `/v1/agents/${follower}/triggers`, {
          key: user.key,
          body: { kind: 'event', source_agent_id: source, events: ['run.completed'] },
        });
        expect(res.status).toBe(201);
        return { source, follower, triggerId: res.body.trigger_id, last: null as string | null };
      },
      async (user, lane) => {
        const runId = await startRun(user, lane.source, { user_message: 'source', skip_deploy_check: true });
        await untilFinished(user, lane.source, runId);
        const trigger = await http(base, 'GET', `/v1/agents/${lane.follower}/triggers/${lane.triggerId}`, { key: user.key });
        expect(trigger.body.last_triggered_at).not.toBeNull();
        expect(trigger.body.last_triggered_at).not.toBe(lane.last);
        lane.last = trigger.body.last_triggered_at;
      },
    );
    const seen = seenAtTriggeredStart.slice(triggered);
    expect(seen.length).toBeGreaterThanOrEqual(TIMES * 0.9); // the last few may still be on their way
    for (const s of seen) expect(s).toEqual({ sourceRun: s.sourceRun, latestRunId: s.sourceRun, finished: true });
  });

  it("the SSE stream's end comes once the build run's agent is deployed", async () => {
    await inLanes(
      'sse',
      async () => undefined,
      async (user) => {
        const agentId = await createAgent(user);
        const runId = await startRun(user, agentId, { run_mode: 'build' });
        const stream = await SseStream.open(`${base}/v1/agents/${agentId}/runs/${runId}/events/stream`, { 'x-api-key': user.key });
        expect(stream.status).toBe(200);
        // Read the agent the moment `end` arrives, not on a later look at the stream.
        const atEnd = new Promise<any>((resolve) => {
          const push = stream.events.push.bind(stream.events);
          stream.events.push = (...events) => {
            if (events.some((e) => e.event === 'end')) resolve(getAgent(user.key, agentId));
            return push(...events);
          };
        });
        const agent = await atEnd;
        stream.close();
        expect([agent.deployment_state, agent.latest_run_id, agent.latest_run_is_finished]).toEqual(['deployed', runId, true]);
      },
    );
  });

  it("a webhook's run.completed arrives once the run is its agent's latest, finished", async () => {
    const seen = new Map<string, (agent: any) => void>();
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', async () => {
        const { data } = JSON.parse(body);
        // Read the agent before the delivery is answered: what the receiver could see as it got it.
        const agent = await getAgent(owners.get(data.agent_id)!, data.agent_id);
        res.writeHead(204).end();
        seen.get(data.run_id)?.(agent);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    try {
      await inLanes(
        'webhook',
        async (user) => {
          const agentId = await createAgent(user);
          const res = await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: user.key, body: { url, events: ['run.completed'] } });
          expect(res.status).toBe(201);
          return agentId;
        },
        async (user, agentId: string) => {
          const runId = await startRun(user, agentId, { run_mode: 'build' });
          const delivered = new Promise<any>((resolve) => seen.set(runId, resolve));
          const agent = await delivered;
          expect([agent.deployment_state, agent.latest_run_id, agent.latest_run_is_finished]).toEqual(['deployed', runId, true]);
        },
      );
    } finally {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('a scheduled run that reads failed has counted on its schedule, which no longer holds it as unfinished', async () => {
    const db = new Client({ connectionString: system.infra.databaseUrl });
    await db.connect();
    const activeRun = async (agentId: string) =>
      (await db.query('SELECT active_run_id FROM scheduler.schedules WHERE agent_id = $1', [agentId])).rows[0]?.active_run_id ?? null;
    try {
      // Agents firing every second; SCHEDULED_TIMES / SCHEDULED_AGENTS runs of each are checked.
      const lanes = await Promise.all(
        Array.from({ length: SCHEDULED_AGENTS }, async (_, l) => {
          const user = await freshUser(system, `schedule-${l}`);
          const agentId = await createAgent(user);
          await untilFinished(user, agentId, await startRun(user, agentId, { run_mode: 'build' }));
          const put = await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: user.key, body: { cron: '* * * * * ? *', overlap: 'skip' } });
          expect(put.status).toBe(200);
          return { user, agentId };
        }),
      );
      await Promise.all(
        lanes.map(async ({ user, agentId }) => {
          const checked = new Set<string>();
          while (checked.size < SCHEDULED_TIMES / lanes.length) {
            const list = await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: user.key });
            // The agent's runs besides its build are its schedule's, and the runtime fails every one of them.
            const failed = list.body.runs.filter((r: any) => r.status === 'error');
            const finished = failed.filter((r: any) => !checked.has(r.run_id));
            if (finished.length === 0) {
              await pause(50);
              continue;
            }
            const schedule = await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: user.key });
            const active = await activeRun(agentId);
            for (const run of finished) {
              checked.add(run.run_id);
              expect(active).not.toBe(run.run_id);
            }
            expect(schedule.body.schedule.consecutive_failures).toBeGreaterThanOrEqual(failed.length);
          }
        }),
      );
    } finally {
      await db.end();
    }
  });
});
