/** @run-alone it bounds another user's delivery latency: a test file running beside it would skew that latency. */
import { Pool } from 'pg';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { parsePrometheusText, samplesOf } from './support/prometheus-text';
import { TestSystem, urlOf } from './support/test-system';
import { User, freshUser } from './support/test-users';
import { Received, Receiver } from './support/webhook-receiver';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Small limits and times, so that what takes minutes in production takes seconds here. */
const TIMEOUT_MS = 3_000;
const PER_ENDPOINT = 2;
const PER_USER = 8;
const THRESHOLD = 2;
const COOLDOWN_MS = 2_000;
const MAX_COOLDOWN_MS = 4_000;
/** B's deliveries arrive within this of their run's start while A's endpoints hang (unfair, they would wait for A's timeouts). */
const B_LATENCY_BOUND_MS = 2_000;
const A_WEBHOOKS = 20;
const A_RUNS = 6;
const EVENTS = ['run.started', 'run.completed'];
/** Arrivals this close after a circuit opened may have been let through just before it did. */
const SLACK_MS = 250;

/**
 * A hostile user A with 20 webhooks on a receiver that hangs, and a user B with one healthy webhook,
 * through the gateway: B's deliveries keep their latency, A never has more than the limits in flight,
 * A's circuits open and let nothing through but one probe per cool-down, and once A's receiver is
 * back every one of A's deliveries arrives, once.
 */
describe('Webhook fairness: one user whose endpoints hang does not hold up another', () => {
  let system: TestSystem;
  let receiverA: Receiver;
  let receiverB: Receiver;
  let pg: Pool;
  let a: User;
  let b: User;
  let base: string;

  beforeAll(async () => {
    receiverA = new Receiver();
    receiverB = new Receiver();
    const [urlA, urlB] = [await receiverA.start(), await receiverB.start()];
    system = await TestSystem.start({
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' },
      webhooksEnv: {
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_WORKER_CONCURRENCY: '20',
        WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(PER_ENDPOINT),
        WEBHOOK_MAX_IN_FLIGHT_PER_USER: String(PER_USER),
        WEBHOOK_CIRCUIT_FAILURE_THRESHOLD: String(THRESHOLD),
        WEBHOOK_CIRCUIT_COOLDOWN_MS: String(COOLDOWN_MS),
        WEBHOOK_CIRCUIT_MAX_COOLDOWN_MS: String(MAX_COOLDOWN_MS),
        // Enough retries that no delivery runs out of them while its circuit is being opened.
        WEBHOOK_RETRY_DELAYS: '1s,1s,1s,1s,1s,1s,1s,1s,2m',
      },
    });
    base = system.url();
    pg = observerPool(system.infra.databaseUrl, 'webhooks');
    [a, b] = [await freshUser(system, 'hostile'), await freshUser(system, 'bystander')];

    const agentA = await newAgent(a);
    for (let i = 0; i < A_WEBHOOKS; i++) await subscribe(a, agentA, `${urlA}/a/${i}`, EVENTS);
    agentOfA = agentA;
    agentOfB = await newAgent(b);
    await subscribe(b, agentOfB, `${urlB}/b`, ['run.started']);
  });
  afterAll(async () => {
    await pg?.end();
    await system?.stop();
    await receiverA?.close();
    await receiverB?.close();
  });

  let agentOfA: string;
  let agentOfB: string;
  async function newAgent(user: User): Promise<string> {
    return (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
  }
  async function subscribe(user: User, agentId: string, url: string, events: string[]): Promise<void> {
    expect((await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: user.key, body: { url, events } })).status).toBe(201);
  }
  async function startRun(user: User, agentId: string): Promise<string> {
    const res = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { skip_deploy_check: true } });
    expect(res.status).toBe(201);
    return res.body.run.run_id;
  }
  async function metric(name: string, labels: Record<string, string> = {}): Promise<number> {
    const text = await (await fetch(`${urlOf(system.others.webhooks!)}/metrics`)).text();
    return samplesOf(parsePrometheusText(text), name, labels).reduce((sum, s) => sum + s.value, 0);
  }
  const pathsOfA = Array.from({ length: A_WEBHOOKS }, (_, i) => `/a/${i}`);

  it('keeps B on time while A hangs, holds A to its limits, opens A circuits, and delivers all of A once A is back', async () => {
    receiverA.answer = () => ({ status: 200, holdMs: 3_600_000 });

    // A keeps starting runs while B starts one every 400 ms; B's latency is run start to its run.started arriving.
    const aRuns: string[] = [];
    const aLoad = (async () => {
      for (let i = 0; i < A_RUNS; i++) {
        aRuns.push(await startRun(a, agentOfA));
        await sleep(1_000);
      }
    })();
    const sentAt = new Map<string, number>();
    for (let i = 0; i < 30; i++) {
      const sent = Date.now();
      sentAt.set(await startRun(b, agentOfB), sent);
      await sleep(400);
    }
    await aLoad;
    const bReceived = await eventually(
      "B's run.started deliveries",
      () => receiverB.on('/b'),
      (r) => r.length >= sentAt.size,
    );
    const latencies = bReceived.map((r) => r.at - sentAt.get(JSON.parse(r.body).data.run_id)!);
    expect(Math.max(...latencies)).toBeLessThan(B_LATENCY_BOUND_MS);
    expect(new Set(bReceived.map((r) => r.headers['x-service-delivery'])).size).toBe(sentAt.size);

    // Every A circuit opens (each by failures, once: nothing of A is answered yet).
    await eventually('all of A circuits to open', () => metric('aas_webhook_circuits_opened_total', { cause: 'failures' }), (n) => n >= A_WEBHOOKS, 60_000);
    expect(await metric('aas_webhook_circuits_opened_total', { cause: 'failures' })).toBe(A_WEBHOOKS);
    expect(await metric('aas_webhook_delivery_deferrals_total', { reason: 'circuit_open' })).toBeGreaterThan(0);
    // Long enough for some circuits to probe and open again.
    await sleep(MAX_COOLDOWN_MS);
    // What A sees meanwhile: deliveries pending, the ones its circuits hold showing when they will be looked at
    // again. Polled over all of A's webhooks: at one instant, one webhook's held deliveries may all be between
    // their wait's end and the worker's next look (or waiting on a busy slot, which is not shown).
    const hooks = (await http(base, 'GET', `/v1/agents/${agentOfA}/webhooks`, { key: a.key })).body.webhooks as { webhook_id: string }[];
    await eventually(
      'a pending delivery of A showing a next_attempt_at still to come',
      async () => {
        const now = Date.now();
        const pending: { next_attempt_at: string | null }[] = [];
        for (const hook of hooks) {
          const listed = await http(base, 'GET', `/v1/agents/${agentOfA}/webhooks/${hook.webhook_id}/deliveries`, { key: a.key });
          pending.push(...(listed.body.deliveries as { status: string; next_attempt_at: string | null }[]).filter((d) => d.status === 'pending'));
        }
        return { pending: pending.length, ahead: pending.filter((d) => d.next_attempt_at !== null && Date.parse(d.next_attempt_at) > now).length };
      },
      (seen) => seen.pending > 0 && seen.ahead > 0,
      10_000,
    );

    receiverA.answer = () => ({ status: 200, holdMs: 0 });
    const expected = aRuns.length * EVENTS.length * A_WEBHOOKS;
    const deliveries = await eventually(
      "every one of A's deliveries to succeed",
      async () =>
        (
          await pg.query(
            `SELECT d.id, d.status, d.event, d.body, w.url FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.user_id = $1`,
            [a.userId],
          )
        ).rows,
      (rows) => rows.length === expected && rows.every((r) => r.status === 'succeeded'),
      60_000,
    );

    // None lost, none doubled: each delivery answered 2xx exactly once, each event of each run under one delivery id per webhook.
    const answered = receiverA.received.filter((r) => r.answered === 200);
    expect(answered).toHaveLength(expected);
    expect(new Set(answered.map((r) => r.headers['x-service-delivery']))).toEqual(new Set(deliveries.map((d) => d.id)));
    const events = new Set(deliveries.map((d) => `${d.url} ${d.event} ${JSON.parse(d.body).data.run_id}`));
    expect(events.size).toBe(expected);
    // A delivery held back took no attempt: every attempt recorded is a request A's receiver got.
    const { rows: attempts } = await pg.query(
      `SELECT count(*)::int AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN webhooks w ON w.id = d.webhook_id
        WHERE w.user_id = $1`,
      [a.userId],
    );
    expect(attempts[0].n).toBe(receiverA.received.length);

    // Never more than the limits in flight at A's receiver: per webhook, and all of A together.
    for (const path of pathsOfA) expect(receiverA.mostOpen.get(path) ?? 0).toBeLessThanOrEqual(PER_ENDPOINT);
    expect(mostOverlapping(receiverA.received)).toBeLessThanOrEqual(PER_USER);

    // No attempt while a circuit was open: after it opened, one probe per cool-down until one was answered.
    for (const path of pathsOfA) expectOnlyProbesWhileOpen(receiverA.on(path));
    expect(await metric('aas_webhook_circuits_closed_total')).toBe(A_WEBHOOKS);
  });
});

/** The most exchanges that were open at once. */
function mostOverlapping(exchanges: Received[]): number {
  const edges = exchanges.flatMap((r) => [
    { at: r.at, by: 1 },
    { at: r.closedAt ?? Infinity, by: -1 },
  ]);
  // At the same instant a close comes first: an exchange ending as another begins is not an overlap.
  edges.sort((x, y) => x.at - y.at || x.by - y.by);
  let open = 0;
  let most = 0;
  for (const edge of edges) most = Math.max(most, (open += edge.by));
  return most;
}

/**
 * The circuit of one webhook opened when its THRESHOLD-th failed exchange ended (all of them failed while
 * the receiver hung). From then until an exchange is answered, what arrives is a probe: one at a time, and
 * each at least a cool-down after the circuit opened or the last probe failed.
 */
function expectOnlyProbesWhileOpen(exchanges: Received[]): void {
  const failures = exchanges.filter((r) => r.answered === undefined).sort((x, y) => x.closedAt! - y.closedAt!);
  expect(failures.length).toBeGreaterThanOrEqual(THRESHOLD);
  const openedAt = failures[THRESHOLD - 1].closedAt!;
  let reopenedAt = openedAt;
  for (const probe of exchanges.filter((r) => r.at > openedAt + SLACK_MS).sort((x, y) => x.at - y.at)) {
    expect(probe.at).toBeGreaterThanOrEqual(reopenedAt + COOLDOWN_MS - SLACK_MS);
    if (probe.answered !== undefined) return;
    reopenedAt = probe.closedAt!;
  }
}
