/** @run-alone it bounds another tenant's latency under attack: a test file running beside it would skew that latency. */
import { Client } from 'pg';
import { PACING_HORIZON_MS } from '../../apps/webhook-delivery/src/history/redelivery-pacing';
import { expectProblem, http } from '../support/http';
import { TestSystem } from '../support/test-system';
import { User, freshUser } from '../support/test-users';
import { VictimSample, attackAtRate, expectVictimUnharmed as expectUnharmed, percentile, victimUnderAttack } from '../support/victim-latency';
import { Receiver } from '../support/webhook-receiver';

const TEST_EVENTS_PER_WEBHOOK = 5;
const REQUESTED_SENDS_PER_USER = 12;
const REDELIVER_SINCE_MAX = 500;
/** Failed deliveries the attacker has in store to redeliver: more than its requests may queue. */
const SEEDED_FAILURES = 3_000;
/** Bulk redeliveries of one user go out at most this many a second (WEBHOOK_REDELIVER_SINCE_PER_SECOND's default). */
const REDELIVERED_PER_SECOND = 20;
const ATTACK_CALLS_PER_SECOND = 12;

/**
 * Issue #25, items 4 and 5: what the sends a user may ask for (test events, redelivering every failed
 * delivery since a time) let a tenant do to another. The attacker asks for as many as it can, on its own
 * webhooks (whose receiver is slow and failing) and on the victim's, while the victim's run start to
 * webhook delivery is timed (test/support/victim-latency.ts): no 5xx, p99 within 2x the same test's baseline.
 */
describe('Hardening: test events and bulk redelivery', () => {
  let system: TestSystem;
  let base: string;
  let attacker: User;
  let victim: User;
  let victimReceiver: Receiver;
  let attackerReceiver: Receiver;
  let victimUrl: string;
  let attackerUrl: string;

  beforeAll(async () => {
    victimReceiver = new Receiver();
    // Every attacker delivery holds a worker slot for 300 ms, then fails: as costly a receiver as a user can have short of the timeout.
    attackerReceiver = new Receiver(300);
    attackerReceiver.answer = () => ({ status: 500 });
    [victimUrl, attackerUrl] = await Promise.all([victimReceiver.start(), attackerReceiver.start()]);
    const quiet = { LOG_LEVEL: 'fatal' };
    system = await TestSystem.start({
      gatewayEnv: quiet,
      agentsEnv: quiet,
      schedulerEnv: quiet,
      runsEnv: { ...quiet, BUILTIN_RUNTIME_STEP_MS: '1' },
      webhooksEnv: {
        ...quiet,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_TEST_EVENTS_PER_MINUTE: String(TEST_EVENTS_PER_WEBHOOK),
        WEBHOOK_REQUESTED_SENDS_PER_USER_PER_MINUTE: String(REQUESTED_SENDS_PER_USER),
        WEBHOOK_REDELIVER_SINCE_MAX: String(REDELIVER_SINCE_MAX),
      },
    });
    base = system.url();
    [attacker, victim] = [await freshUser(system, 'attacker'), await freshUser(system, 'victim')];
  });
  afterAll(async () => {
    await system?.stop();
    await Promise.all([victimReceiver?.close(), attackerReceiver?.close()]);
  });

  async function webhookOf(user: User, url: string): Promise<{ agentId: string; path: string }> {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
    const created = await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: user.key, body: { url, events: ['run.started'] } });
    expect(created.status).toBe(201);
    return { agentId, path: `/v1/agents/${agentId}/webhooks/${created.body.webhook_id}` };
  }


  it("a tenant's flood of test events and bulk redeliveries, on its own webhooks and the victim's, neither delays nor reaches the victim's", async () => {
    // Five agents, taken in turn: the victim's runs never wait for each other (at most 5 execute per agent).
    const victimHooks = await Promise.all([0, 1, 2, 3, 4].map(() => webhookOf(victim, `${victimUrl}/victim`)));
    const victimHook = victimHooks[0];
    const attackerHooks = await Promise.all([0, 1, 2].map((i) => webhookOf(attacker, `${attackerUrl}/attacker-${i}`)));
    await seedFailedDeliveries(attackerHooks[0].path.split('/').pop()!, SEEDED_FAILURES);
    const since = new Date(Date.now() - 3_600_000).toISOString();

    // The victim's call: a run started, timed until its run.started delivery is at the victim's receiver.
    const arrived = new Map<string, () => void>();
    const seen = new Set<string>();
    victimReceiver.answer = () => {
      const runId = JSON.parse(victimReceiver.received.at(-1)!.body).data.run_id as string;
      seen.add(runId);
      arrived.get(runId)?.();
      return { status: 204 };
    };
    let turn = 0;
    const victimCall = async (): Promise<number> => {
      const { agentId } = victimHooks[turn++ % victimHooks.length];
      const started = await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: victim.key, body: { skip_deploy_check: true } }).catch(() => ({ status: 0, body: null }));
      if (started.status !== 201) return started.status;
      const runId: string = started.body.run.run_id;
      const delivered = seen.has(runId) || (await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 10_000);
        arrived.set(runId, () => (clearTimeout(timer), resolve(true)));
      }));
      return delivered ? 201 : 0;
    };
    const targets = [
      ...attackerHooks.map((h) => ({ path: `${h.path}/test`, body: {} })),
      { path: `${attackerHooks[0].path}/deliveries/redeliver`, body: { since } },
      { path: `${victimHook.path}/test`, body: {} },
      { path: `${victimHook.path}/deliveries/redeliver`, body: { since } },
    ];
    let queuedInBulk = 0;
    const shoot = async (i: number): Promise<number> => {
      const target = targets[i % targets.length];
      const answer = await http(base, 'POST', target.path, { key: attacker.key, body: target.body }).catch(() => ({ status: 0, body: null }));
      if (answer.status === 202 && typeof answer.body?.queued === 'number') queuedInBulk += answer.body.queued;
      return answer.status;
    };

    const result = await victimUnderAttack(victimCall, (signal) => attackAtRate(signal, ATTACK_CALLS_PER_SECOND, shoot), { durationMs: 3_000 });

    expectVictimUnharmed(result);
    const attacks = result.attackResult as Map<number, number>;
    // Accepted: at most the user's allowance; queued in bulk: what the pacing's horizon holds, and what went out meanwhile.
    expect(attacks.get(202) ?? 0).toBeLessThanOrEqual(REQUESTED_SENDS_PER_USER);
    expect(attacks.get(202) ?? 0).toBeGreaterThan(0);
    expect(queuedInBulk).toBeGreaterThanOrEqual(REDELIVER_SINCE_MAX);
    expect(queuedInBulk).toBeLessThanOrEqual(((PACING_HORIZON_MS + 5_000) / 1000) * REDELIVERED_PER_SECOND);
    expect(attacks.get(429)).toBeGreaterThan(0);
    expect(attacks.get(404)).toBeGreaterThan(0);
    expect([...attacks.keys()].sort()).toEqual([202, 404, 429]);
    // Nothing the attacker asked for reached the victim's receiver, and the victim's own allowance is whole.
    expect(victimReceiver.on('/victim').every((r) => JSON.parse(r.body).data.run_id !== '00000000-0000-0000-0000-000000000000')).toBe(true);
    for (let i = 0; i < TEST_EVENTS_PER_WEBHOOK; i++) expect((await http(base, 'POST', `${victimHook.path}/test`, { key: victim.key })).status).toBe(202);
    expectProblem(await http(base, 'POST', `${victimHook.path}/test`, { key: victim.key }), 429);
    // The attacker's test events per webhook held too.
    for (const hook of attackerHooks) {
      const tests = (await http(base, 'GET', `${hook.path}/deliveries?page_size=200`, { key: attacker.key })).body.deliveries.filter((d: { test: boolean }) => d.test);
      expect(tests.length).toBeLessThanOrEqual(TEST_EVENTS_PER_WEBHOOK);
    }
  });

  /** Failed deliveries made an hour ago (as a receiver down all that time leaves them), written straight into the webhooks schema. */
  async function seedFailedDeliveries(webhookId: string, count: number): Promise<void> {
    const pg = new Client({ connectionString: system.infra.databaseUrl });
    await pg.connect();
    try {
      await pg.query(
        `INSERT INTO webhooks.deliveries (webhook_id, source_event_id, event, body, status, attempt_count, created_at, finished_at)
         SELECT $1, 'seeded-' || n, 'run.started', '{"event":"run.started","data":{"run_id":"seeded"}}', 'failed', 2,
                now() - interval '30 minutes', now() - interval '20 minutes'
           FROM generate_series(1, $2) AS n`,
        [webhookId, count],
      );
    } finally {
      await pg.end();
    }
  }

  function expectVictimUnharmed(result: { baseline: VictimSample; underAttack: VictimSample }): void {
    const p99 = (sample: VictimSample) => percentile(sample.latencies, 99).toFixed(1);
    process.stdout.write(`webhook sends on request: victim delivery p99 ${p99(result.underAttack)} ms under attack, ${p99(result.baseline)} ms before\n`);
    expectUnharmed(result);
  }
});
