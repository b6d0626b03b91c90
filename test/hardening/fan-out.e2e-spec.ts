/** @run-alone it bounds another tenant's latency under attack: a test file running beside it would skew that latency. */
import { InstallationChainKey, inboundTargetOf } from '@aas/platform';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { eventually } from '../support/eventually';
import { HttpResult, expectProblem, http } from '../support/http';
import { observerPool } from '../support/isolated-infra';
import { TestRuntime, lines } from '../support/test-runtime';
import { TEST_WEBHOOK_SECRET_KEY, TestSystem } from '../support/test-system';
import { User, freshUser } from '../support/test-users';
import { expectVictimUnharmed, victimUnderAttack } from '../support/victim-latency';

/**
 * Issue 24, fan-out: one tenant's triggers, webhooks and floods of starts must neither multiply without
 * bound nor slow another tenant down. Two systems, for settings that cannot share one: chains and many
 * followers (a, b, e), then the per-user caps on queued runs and triggered starts (c, d). Small limits
 * keep the runs few and the file quick.
 */
const CHAIN_MAX_RUNS = 12;
const SELF_FOLLOWING = 20;
const FOLLOWERS = 600;
const WAITING_PER_USER = 20;
const EXECUTING_PER_USER = 4;
const TRIGGERED_PER_MINUTE = 10;
const HOLD = 'hold this run';
/** The per-address allowance of the chains' system, which every call of its tests and every delivery share (127.0.0.1). */
const ADDRESS_ALLOWANCE = 10;
/** Each victim sample: a baseline and a measure under attack this long, after a short warm-up. */
const SAMPLE = { durationMs: 2000, warmupMs: 300 };

/** A page of the agent's runs (the first 1,000 unless `query` says otherwise) and their total. */
const runsOf = async (base: string, user: User, agentId: string, query = 'page_size=1000') =>
  (await http(base, 'GET', `/v1/agents/${agentId}/runs?${query}`, { key: user.key })).body as { runs: Array<Record<string, any>>; total_runs: number };

async function deployedAgent(base: string, user: User): Promise<string> {
  const agentId = (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
  await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { run_mode: 'build' } });
  await eventually(
    'agent deployed',
    async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: user.key })).body.agent.deployment_state,
    (state) => state === 'deployed',
  );
  return agentId;
}

/** The victim's calls: a run start, then a read of that run, in turn; each answers its status (0: no answer). */
function startsAndReads(base: string, user: User, agentId: string): () => Promise<number> {
  let lastRun: string | undefined;
  return async () => {
    try {
      if (!lastRun) {
        const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { user_message: 'victim' } });
        lastRun = started.body?.run?.run_id;
        return started.status;
      }
      const read = await http(base, 'GET', `/v1/agents/${agentId}/runs/${lastRun}`, { key: user.key });
      lastRun = undefined;
      return read.status;
    } catch {
      return 0;
    }
  };
}

/**
 * Calls `task` from `concurrency` loops until `signal` is aborted, each loop at most `perSecond` calls a
 * second when given; answers every result.
 */
async function untilAborted<T>(signal: AbortSignal, concurrency: number, task: (i: number) => Promise<T>, perSecond?: number): Promise<T[]> {
  const results: T[] = [];
  const spacing = perSecond === undefined ? 0 : 1000 / perSecond;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (!signal.aborted) {
        const started = Date.now();
        results.push(await task(results.length));
        const rest = spacing - (Date.now() - started);
        if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
      }
    }),
  );
  return results;
}

async function inParallel<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await task(i);
      }
    }),
  );
  return results;
}

describe('Hardening: fan-out of runs', () => {
  let runtime: TestRuntime;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));

  beforeAll(async () => {
    runtime = await TestRuntime.start();
    runtime.handler = lines({ type: 'completed', outcome: 'success' });
    // Held until a test releases them, so that they keep their user's executing runs full.
    runtime.script(HOLD, async (reply) => {
      reply.line({ type: 'step', title: 'holding' });
      await Promise.race([released, reply.closed]);
      reply.line({ type: 'completed', outcome: 'success' });
      reply.end();
    });
  });
  afterAll(async () => {
    release();
    await runtime?.close();
  });

  describe('chains of triggered runs', () => {
    let system: TestSystem;
    let base: string;
    let victim: User;
    let victimAgent: string;

    beforeAll(async () => {
      system = await TestSystem.start({
        runsEnv: { AGENT_RUNTIME_URL: runtime.url, AGENT_RUNTIME_SECRET: 'fan-out-runtime-secret-0123456789', TRIGGER_CHAIN_MAX_RUNS: String(CHAIN_MAX_RUNS) },
        // The chain's limit, not its depth nor the owner's allowance, is what (a) and (b) look at.
        schedulerEnv: { QUOTA_TRIGGERS_PER_AGENT: String(SELF_FOLLOWING), RATE_LIMIT_TRIGGERED_RUNS: '5000', TRIGGER_MAX_DEPTH: String(2 * CHAIN_MAX_RUNS) },
        // Retries of refused deliveries would come after the test; the webhooks post to the gateway on 127.0.0.1.
        webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_DELAYS: '1h' },
        // Every call of this test and every delivery comes from 127.0.0.1: deliveries must not use up its allowance.
        gatewayEnv: { RATE_LIMIT_UNAUTHENTICATED_REQUESTS: String(ADDRESS_ALLOWANCE) },
      });
      base = system.url();
      victim = await freshUser(system, 'victim');
      victimAgent = await deployedAgent(base, victim);
    });
    afterAll(async () => system?.stop());

    it(`(a) ${SELF_FOLLOWING} self-following event triggers start at most TRIGGER_CHAIN_MAX_RUNS (${CHAIN_MAX_RUNS}) runs from one API call, recorded on the triggers, while another tenant's starts and reads keep their pace`, async () => {
      const attacker = await freshUser(system, 'chain');
      const agentId = await deployedAgent(base, attacker);
      const triggers = await inParallel(SELF_FOLLOWING, 4, async () => {
        const created = await http(base, 'POST', `/v1/agents/${agentId}/triggers`, {
          key: attacker.key,
          body: { kind: 'event', source_agent_id: agentId, events: ['run.completed'] },
        });
        expect(created.status).toBe(201);
        return created.body.trigger_id as string;
      });
      const triggered = () => runsOf(base, attacker, agentId, 'page_size=1000&filter_trigger_kind=event');

      const result = await victimUnderAttack(startsAndReads(base, victim, victimAgent), async () => {
        expect((await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: attacker.key, body: {} })).status).toBe(201);
        return eventually('the chain ran out', triggered, (list) => list.total_runs === CHAIN_MAX_RUNS && list.runs.every((r) => r.is_finished), 40_000);
      }, SAMPLE);

      expectVictimUnharmed(result);
      // Every further start of the chain is refused, recorded on the trigger that would have made it.
      const refused = await eventually(
        'the refusals recorded',
        async () => (await http(base, 'GET', `/v1/agents/${agentId}/triggers`, { key: attacker.key })).body.triggers as Array<Record<string, any>>,
        (list) => list.every((t) => t.last_error !== null),
      );
      expect(refused.map((t) => t.trigger_id).sort()).toEqual([...triggers].sort());
      for (const trigger of refused) expect(trigger.last_error).toMatch(new RegExp(`trigger_chain_runs is ${CHAIN_MAX_RUNS}`));
      expect((await triggered()).total_runs).toBe(CHAIN_MAX_RUNS);
      expect((await runsOf(base, attacker, agentId)).total_runs).toBe(CHAIN_MAX_RUNS + 2); // and the build run and the root
    });

    it("(b) a webhook pointed at its agent's own inbound URL stops at the chain's limit, not charged to the one address deliveries come from; a forged chain header is ignored, a signed one for that chain refused", async () => {
      const attacker = await freshUser(system, 'loop');
      const agentId = await deployedAgent(base, attacker);
      const created = await http(base, 'POST', `/v1/agents/${agentId}/triggers`, { key: attacker.key, body: { kind: 'webhook' } });
      const path = new URL(created.body.url).pathname;
      const inbound = () => runsOf(base, attacker, agentId, 'page_size=1000&filter_trigger_kind=webhook');
      let webhookId = '';
      const deliveries = async () =>
        (await http(base, 'GET', `/v1/agents/${agentId}/webhooks/${webhookId}/deliveries?page_size=200`, { key: attacker.key })).body.deliveries as Array<Record<string, any>>;
      let root = '';

      const result = await victimUnderAttack(startsAndReads(base, victim, victimAgent), async () => {
        // Each run's end calls the agent's own URL, which starts the next run: every call of it a new webhook-id.
        const webhook = await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, {
          key: attacker.key,
          body: { url: `${base}${path}`, events: ['run.completed'] },
        });
        expect(webhook.status).toBe(201);
        webhookId = webhook.body.webhook_id;
        root = (await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: attacker.key, body: {} })).body.run.run_id;
        // Every run's delivery attempted: nothing more can start the chain.
        return eventually(
          'the loop ran out',
          async () => [(await inbound()).total_runs, (await deliveries()).filter((d) => d.attempts.length > 0).length],
          ([runs, attempted]) => runs === CHAIN_MAX_RUNS && attempted === CHAIN_MAX_RUNS + 1,
          40_000,
        );
      }, SAMPLE);

      expectVictimUnharmed(result);
      const answers = (await deliveries()).map((d) => d.attempts[0].status_code);
      expect(answers.filter((s) => s === 202)).toHaveLength(CHAIN_MAX_RUNS);
      // The last refused for the chain (422), none for the shared address (429): the installation's calls are not charged to it.
      expect(answers.filter((s) => s !== 202)).toEqual([422]);
      expect((await http(base, 'PATCH', `/v1/agents/${agentId}/webhooks/${webhookId}`, { key: attacker.key, body: { status: 'disabled' } })).status).toBe(200);

      const body = JSON.stringify({ event: 'run.completed' });
      const call = (headers: Record<string, string>) => http(base, 'POST', path, { rawBody: body, headers: { 'content-type': 'application/json', ...headers } });
      const signed = (key: string, id: string) =>
        InstallationChainKey.derivedFrom(key).sign({ rootRunId: root, depth: 3 }, { deliveryId: id, body, target: inboundTargetOf(path), now: new Date() });
      // Signed with another key: ignored, the call starts a chain of its own.
      const forged = await call({ 'webhook-id': 'forged-1', 'aas-chain': signed(Buffer.alloc(32, 9).toString('base64'), 'forged-1') });
      expect(forged.status).toBe(202);
      // Signed with this installation's key: it continues the exhausted chain, and is refused.
      const genuine = await call({ 'webhook-id': 'genuine-1', 'aas-chain': signed(TEST_WEBHOOK_SECRET_KEY, 'genuine-1') });
      expectProblem(genuine, 422);
      expect(genuine.body).toMatchObject({ type: 'urn:aas:problem:quota-exceeded', quota: 'trigger_chain_runs', limit: CHAIN_MAX_RUNS });
      expect((await inbound()).total_runs).toBe(CHAIN_MAX_RUNS + 1);
    });
    it("(b2) the installation's own deliveries that fail are not charged to the address they share with every tenant's, nor refused once another caller used that address up; a captured chain header replayed onto other URLs exempts nothing", async () => {
      const owner = await freshUser(system, 'misaimed');
      const [source, target] = [await deployedAgent(base, owner), await deployedAgent(base, owner)];
      const webhookTo = async (url: string) => {
        const created = await http(base, 'POST', `/v1/agents/${source}/webhooks`, { key: owner.key, body: { url, events: ['run.completed'] } });
        expect(created.status).toBe(201);
        return created.body.webhook_id as string;
      };
      const answered = async (webhookId: string) =>
        ((await http(base, 'GET', `/v1/agents/${source}/webhooks/${webhookId}/deliveries?page_size=200`, { key: owner.key })).body.deliveries as Array<Record<string, any>>)
          .filter((d) => d.attempts.length > 0)
          .map((d) => d.attempts[0].status_code as number);
      const unknownUrl = () => `/hooks/${randomUUID()}/${'x'.repeat(43)}`;

      // A webhook aimed at an inbound URL of this installation that does not exist: more failed deliveries than the address allows.
      const misaimed = await webhookTo(`${base}${unknownUrl()}`);
      const failing = ADDRESS_ALLOWANCE + 2;
      for (let i = 0; i < failing; i++) expect((await http(base, 'POST', `/v1/agents/${source}/runs`, { key: owner.key, body: {} })).status).toBe(201);
      const failed = await eventually('every failed delivery answered', () => answered(misaimed), (statuses) => statuses.length === failing, 40_000);
      expect(new Set(failed)).toEqual(new Set([404])); // none refused for the address: none was charged to it
      expect((await http(base, 'PATCH', `/v1/agents/${source}/webhooks/${misaimed}`, { key: owner.key, body: { status: 'disabled' } })).status).toBe(200);

      // Another caller at that address replays a genuine chain header, signed for another endpoint, onto unknown URLs: charged as any failure.
      const endpointPath = new URL((await http(base, 'POST', `/v1/agents/${target}/triggers`, { key: owner.key, body: { kind: 'webhook' } })).body.url).pathname;
      const body = JSON.stringify({ event: 'run.completed' });
      const captured = {
        'content-type': 'application/json',
        'webhook-id': 'captured-1',
        'aas-chain': InstallationChainKey.derivedFrom(TEST_WEBHOOK_SECRET_KEY).sign(
          { rootRunId: randomUUID(), depth: 1 },
          { deliveryId: 'captured-1', body, target: inboundTargetOf(endpointPath), now: new Date() },
        ),
      };
      // (The address is not over before them, whatever else this file's calls without a key cost it: the first is a 404.)
      const replays: number[] = [];
      while (replays.at(-1) !== 429 && replays.length <= ADDRESS_ALLOWANCE + 1) replays.push((await http(base, 'POST', unknownUrl(), { rawBody: body, headers: captured })).status);
      expect(replays.at(-1)).toBe(429);
      expect(new Set(replays.slice(0, -1))).toEqual(new Set([404]));

      // The address is over now; a delivery of this installation to an endpoint never called before still reaches it.
      const webhook = await webhookTo(`${base}${endpointPath}`);
      expect((await http(base, 'POST', `/v1/agents/${source}/runs`, { key: owner.key, body: {} })).status).toBe(201);
      expect(await eventually('the delivery answered', () => answered(webhook), (statuses) => statuses.length === 1, 30_000)).toEqual([202]);
      expect((await runsOf(base, owner, target, 'page_size=10&filter_trigger_kind=webhook')).total_runs).toBe(1);
    });
  });

  describe("a user's queued runs and triggered starts", () => {
    let system: TestSystem;
    let base: string;
    let victim: User;
    let victimAgent: string;
    let db: Pool;

    beforeAll(async () => {
      system = await TestSystem.start({
        runsEnv: {
          AGENT_RUNTIME_URL: runtime.url,
          AGENT_RUNTIME_SECRET: 'fan-out-runtime-secret-0123456789',
          QUOTA_WAITING_RUNS_PER_USER: String(WAITING_PER_USER),
          RUN_CONCURRENCY_PER_USER: String(EXECUTING_PER_USER),
        },
        // An endpoint's own allowance (scheduler-service's, charged once a call is verified), as in production:
        // past it a flood is answered from that replica's memory.
        schedulerEnv: { RATE_LIMIT_TRIGGERED_RUNS: String(TRIGGERED_PER_MINUTE), RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: String(3 * TRIGGERED_PER_MINUTE) },
      });
      base = system.url();
      db = observerPool(system.infra.databaseUrl, 'runs');
      victim = await freshUser(system, 'victim');
      victimAgent = await deployedAgent(base, victim);
    });
    afterAll(async () => {
      release(); // the held runs end, so that runs-service stops without waiting for them
      await db?.end();
      await system?.stop();
    });

    it(`(c) a flood of starts past waiting_runs_per_user (${WAITING_PER_USER}) is refused with a 422 naming the quota; another tenant's starts and reads keep their pace`, async () => {
      const attacker = await freshUser(system, 'flood');
      const agentId = await deployedAgent(base, attacker);

      // As fast as the default per-user request limit lets one user start runs (1,200 a minute: 20 a second).
      const result = await victimUnderAttack(
        startsAndReads(base, victim, victimAgent),
        (signal) => untilAborted(signal, 2, () => http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: attacker.key, body: { user_message: HOLD } }), 10),
        SAMPLE,
      );

      expectVictimUnharmed(result);
      const answers = result.attackResult as HttpResult[];
      // A loaded machine may not have reached the cap while the victim was measured: the flood goes on until it is refused.
      while (answers.every((a) => a.status === 201) && answers.length <= EXECUTING_PER_USER + WAITING_PER_USER) {
        answers.push(await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: attacker.key, body: { user_message: HOLD } }));
      }
      // The attacker's runs are held: EXECUTING_PER_USER execute, WAITING_PER_USER wait, every other start is refused.
      expect(answers.filter((a) => a.status === 201)).toHaveLength(EXECUTING_PER_USER + WAITING_PER_USER);
      const refused = answers.filter((a) => a.status !== 201);
      expect(refused.length).toBeGreaterThan(0);
      for (const answer of refused) {
        expectProblem(answer, 422);
        expect(answer.body).toMatchObject({ type: 'urn:aas:problem:quota-exceeded', quota: 'waiting_runs_per_user', limit: WAITING_PER_USER });
      }
      const { rows } = await db.query('SELECT count(*)::int AS n FROM runs WHERE user_id = $1 AND admitted_at IS NULL AND NOT is_finished', [attacker.userId]);
      expect(rows[0].n).toBe(WAITING_PER_USER);
      // The held runs end, and the waiting ones run, before the next test measures anything.
      release();
      await eventually('the flood drained', async () => (await runsOf(base, attacker, agentId)).runs.every((r) => r.is_finished), (done) => done);
    });

    it(`(d) once an owner's triggers used up RATE_LIMIT_TRIGGERED_RUNS (${TRIGGERED_PER_MINUTE} a minute), inbound calls are 429s, backfills too and event triggers record the refusal; the owner's API calls still work, another tenant's keep their pace`, async () => {
      const attacker = await freshUser(system, 'allowance');
      const [agentId, source] = [await deployedAgent(base, attacker), await deployedAgent(base, attacker)];
      const path = new URL((await http(base, 'POST', `/v1/agents/${agentId}/triggers`, { key: attacker.key, body: { kind: 'webhook' } })).body.url).pathname;
      const follower = (await http(base, 'POST', `/v1/agents/${agentId}/triggers`, { key: attacker.key, body: { kind: 'event', source_agent_id: source, events: ['run.completed'] } })).body.trigger_id;
      expect((await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: attacker.key, body: { cron: '0 * * * * ? *' } })).status).toBe(200);

      // Twice what one endpoint takes by default (600 a minute), past the allowance and then past the endpoint's.
      const result = await victimUnderAttack(
        startsAndReads(base, victim, victimAgent),
        (signal) => untilAborted(signal, 2, (i) => http(base, 'POST', path, { rawBody: JSON.stringify({ i }), headers: { 'content-type': 'application/json' } }), 10),
        SAMPLE,
      );

      expectVictimUnharmed(result);
      const answers = result.attackResult as HttpResult[];
      // A loaded machine may not have made that many calls while the victim was measured: the flood goes on past the endpoint's allowance.
      while (answers.length <= 3 * TRIGGERED_PER_MINUTE) {
        answers.push(await http(base, 'POST', path, { rawBody: JSON.stringify({ i: answers.length }), headers: { 'content-type': 'application/json' } }));
      }
      expect(answers.filter((a) => a.status === 202)).toHaveLength(TRIGGERED_PER_MINUTE);
      const refused = answers.filter((a) => a.status !== 202);
      for (const answer of refused) {
        expectProblem(answer, 429);
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // The calls past the owner's allowance and within the endpoint's own were refused for the allowance.
      expect(refused.filter((a) => /allowance of runs started by triggers and backfills/.test(a.body.detail))).toHaveLength(2 * TRIGGERED_PER_MINUTE);
      // The owner's own API calls are not this allowance's: reads and starts work.
      expect((await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: attacker.key })).status).toBe(200);
      expect((await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: attacker.key, body: {} })).status).toBe(201);
      // A backfill is refused whole, with Retry-After.
      const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
      const backfill = await http(base, 'POST', `/v1/agents/${agentId}/schedule/backfill`, { key: attacker.key, body: { from: minutesAgo(3), to: minutesAgo(1) } });
      expectProblem(backfill, 429);
      expect(Number(backfill.headers.get('retry-after'))).toBeGreaterThan(0);
      // An API start of the source is a 201; the event trigger it sets off is refused and says why.
      expect((await http(base, 'POST', `/v1/agents/${source}/runs`, { key: attacker.key, body: {} })).status).toBe(201);
      const trigger = await eventually(
        'the refusal recorded',
        async () => (await http(base, 'GET', `/v1/agents/${agentId}/triggers/${follower}`, { key: attacker.key })).body,
        (t) => t.last_error !== null,
      );
      expect(trigger.last_error).toMatch(/allowance of runs started by triggers and backfills is used up/);
      expect((await runsOf(base, attacker, agentId, 'page_size=1000&filter_trigger_kind=event')).total_runs).toBe(0);
    });
  });

  describe('many followers', () => {
    let system: TestSystem;
    let base: string;

    // One run's followers all belong to its chain: the chain's limit is raised above them here.
    beforeAll(async () => {
      system = await TestSystem.start({
        runsEnv: { AGENT_RUNTIME_URL: runtime.url, AGENT_RUNTIME_SECRET: 'fan-out-runtime-secret-0123456789', TRIGGER_CHAIN_MAX_RUNS: String(2 * FOLLOWERS) },
        schedulerEnv: { QUOTA_TRIGGERS_PER_AGENT: String(FOLLOWERS), RATE_LIMIT_TRIGGERED_RUNS: String(2 * FOLLOWERS) },
        webhooks: false,
      });
      base = system.url();
    });
    afterAll(async () => system?.stop());

    it(`(e) ${FOLLOWERS} event triggers following one agent all start their runs, sent to runs-service in batches`, async () => {
      const owner = await freshUser(system, 'followers');
      const [source, target] = [await deployedAgent(base, owner), await deployedAgent(base, owner)];
      const statuses = await inParallel(FOLLOWERS, 8, async () =>
        (await http(base, 'POST', `/v1/agents/${target}/triggers`, { key: owner.key, body: { kind: 'event', source_agent_id: source, events: ['run.completed'] } })).status,
      );
      expect(statuses.every((s) => s === 201)).toBe(true);
      expect((await http(base, 'POST', `/v1/agents/${source}/runs`, { key: owner.key, body: {} })).status).toBe(201);
      await eventually('every follower started', async () => (await runsOf(base, owner, target, 'page_size=1&filter_trigger_kind=event')).total_runs, (n) => n === FOLLOWERS, 30_000);
      const triggers = (await http(base, 'GET', `/v1/agents/${target}/triggers`, { key: owner.key })).body.triggers as Array<Record<string, any>>;
      expect(triggers.filter((t) => t.last_error !== null || t.last_triggered_at === null)).toEqual([]);
    });
  });
});
