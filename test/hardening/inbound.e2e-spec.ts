/** @run-alone it bounds another tenant's latency under attack: a test file running beside it would skew that latency. */
import { TriggeredRunStart } from '@aas/contracts';
import { createHmac } from 'node:crypto';
import { TriggerStore } from '../../apps/scheduler-service/src/triggers/trigger.store';
import { TriggeredRunStarter } from '../../apps/scheduler-service/src/triggers/triggered-run-starter';
import { eventually } from '../support/eventually';
import { expectProblem, http } from '../support/http';
import { TestSystem } from '../support/test-system';
import { User, freshUser } from '../support/test-users';
import { VictimSample, attackAtRate, expectVictimUnharmed as expectUnharmed, percentile, victimUnderAttack } from '../support/victim-latency';

/** Failed inbound calls (and requests without a verified key) one address may make per window. */
const ADDRESS_ALLOWANCE = 30;
/** Verified calls one endpoint may take per window: the default (the victims spread their calls over several endpoints). */
const ENDPOINT_ALLOWANCE = 600;
/**
 * Attacks are sent at a steady rate, not waiting for answers, as a sender does: what each shows is what one
 * poisoned or hostile call costs the others (everything runs in one process here, on a shared 2-core host,
 * so an attacker's volume alone would slow the victim; volume is the rate limits' business).
 */
const ATTACK_CALLS_PER_SECOND = 10;
/** The address GitHub, Stripe or Svix would post from, shared by every tenant's endpoints; believed from loopback (TRUST_PROXY). */
const SHARED_SENDER = '192.0.2.10';
/** How long the victim is timed before and during each attack. */
const TIMING = { durationMs: 3_000 };
/** Distinct deliveries (so runs) each victim endpoint gets; its other calls repeat one of them. */
const VICTIM_DELIVERIES = 10;

/**
 * Issue #24, inbound endpoints and templates: what a tenant's template, or a stranger holding an inbound
 * URL, can do to other tenants. Each attack runs while another tenant's calls are timed
 * (test/support/victim-latency.ts): no 5xx, p99 within 2x the same test's baseline.
 */
describe('Hardening: inbound endpoints and templates', () => {
  let system: TestSystem;
  let base: string;
  let attacker: User;
  let victim: User;
  let attackerAgent: string;
  let victimAgent: string;

  beforeAll(async () => {
    // The poisoned starts of (b) make runs-service log a 500 each, with its SQL: expected here, and not worth the noise.
    const quiet = { LOG_LEVEL: 'fatal' };
    system = await TestSystem.start({
      gatewayEnv: { ...quiet, TRUST_PROXY: 'loopback', RATE_LIMIT_UNAUTHENTICATED_REQUESTS: String(ADDRESS_ALLOWANCE) },
      schedulerEnv: {
        ...quiet,
        RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: String(ENDPOINT_ALLOWANCE),
        RATE_LIMIT_INBOUND_OWNER_REQUESTS: '100000',
        // The owners' allowance of triggered runs (600 a minute) is test/hardening/fan-out's; these owners' calls pass it.
        RATE_LIMIT_TRIGGERED_RUNS: '0',
        QUOTA_TRIGGERS_PER_AGENT: '100',
      },
      // Runs the calls start finish fast and few at a time, leaving the cores to the requests.
      runsEnv: { ...quiet, BUILTIN_RUNTIME_STEP_MS: '1', RUN_WORKER_CONCURRENCY: '4' },
      agentsEnv: quiet,
      webhooksEnv: quiet,
    });
    base = system.url();
    [attacker, victim] = [await freshUser(system, 'attacker'), await freshUser(system, 'victim')];
    [attackerAgent, victimAgent] = await Promise.all([deployedAgent(attacker), deployedAgent(victim)]);
  });
  afterAll(() => system?.stop());

  async function deployedAgent(user: User): Promise<string> {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { run_mode: 'build' } });
    await eventually(
      'agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: user.key })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    return agentId;
  }

  /** `count` webhook triggers: a victim spreads its calls over them, to stay within each one's allowance however fast the host is. */
  async function endpoints(count: number, user: User, agentId: string, body: object = {}): Promise<Array<{ path: string; secret: string }>> {
    const made: Array<{ path: string; secret: string }> = [];
    for (let i = 0; i < count; i++) made.push(await endpoint(user, agentId, body));
    return made;
  }

  /** A webhook trigger: the path of its URL and its secret. */
  async function endpoint(user: User, agentId: string, body: object = {}): Promise<{ path: string; secret: string }> {
    const created = await http(base, 'POST', `/v1/agents/${agentId}/triggers`, { key: user.key, body: { kind: 'webhook', ...body } });
    expect(created.status).toBe(201);
    return { path: new URL(created.body.url).pathname, secret: created.body.secret };
  }

  const post = (path: string, rawBody: string, headers: Record<string, string> = {}) =>
    http(base, 'POST', path, { rawBody, headers: { 'content-type': 'application/json', ...headers } });
  const status = async (answer: Promise<{ status: number }>) => (await answer.catch(() => ({ status: 0 }))).status;
  const triggerIdOf = (path: string) => path.split('/')[2];
  const runsOf = async (user: User, agentId: string): Promise<Array<{ trigger_id: string; goal: string }>> =>
    (await http(base, 'GET', `/v1/agents/${agentId}/runs?filter_trigger_kind=webhook&page_size=1000`, { key: user.key })).body.runs;
  /**
   * The victims' calls name one of a few deliveries, so that each is a full inbound call (verified, charged,
   * its start accepted or answered as a repeat) without every call starting a run that then executes:
   * what is timed is the inbound path, not the victim's own runs on a shared test host.
   */
  const victimDelivery = (n: number) => ({ 'idempotency-key': `victim-${n % VICTIM_DELIVERIES}` });
  const githubSigned = (secret: string, body: string) => ({ 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` });

  /** expectVictimUnharmed, printing the figures for the record. */
  function expectVictimUnharmed(result: { baseline: VictimSample; underAttack: VictimSample }): void {
    const p99 = (sample: VictimSample) => percentile(sample.latencies, 99).toFixed(1);
    const name = expect.getState().currentTestName;
    process.stdout.write(`${name}: victim p99 ${p99(result.underAttack)} ms under attack, ${p99(result.baseline)} ms before\n`);
    expectUnharmed(result);
  }

  /** `count` calls, `concurrency` at a time; their statuses. */
  async function callMany(count: number, concurrency: number, call: (i: number) => Promise<number>): Promise<number[]> {
    const statuses: number[] = [];
    let next = 0;
    const loop = async () => {
      while (next < count) statuses.push(await call(next++));
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
    return statuses;
  }


  it('(a) a template bomb renders on its budget: another tenant’s schedule list and inbound calls keep their latency', async () => {
    // The worst the rules allow: as many nested sections over one array as 10,000 characters hold.
    const levels = Math.floor(10_000 / '{{#payload.a}}{{/payload.a}}'.length);
    const bomb = `${'{{#payload.a}}'.repeat(levels)}x${'{{/payload.a}}'.repeat(levels)}`;
    expectProblem(await http(base, 'POST', `/v1/agents/${attackerAgent}/triggers`, { key: attacker.key, body: { kind: 'webhook', message_template: '{{=<% %>=}}' } }), 400);
    const bombs = [await endpoint(attacker, attackerAgent, { message_template: bomb }), await endpoint(attacker, attackerAgent, { message_template: bomb })];
    const twoKilobytes = JSON.stringify({ a: Array.from({ length: 1000 }, () => 1) });
    const victimHooks = await endpoints(4, victim, victimAgent, { message_template: 'deploy {{payload.ref}}' });
    await http(base, 'PUT', `/v1/agents/${victimAgent}/schedule`, { key: victim.key, body: { cron: '0 0 0 1 1 ? 2099' } });

    let turn = 0;
    const victimCall = () =>
      turn++ % 2 === 0
        ? status(http(base, 'GET', '/v1/schedules', { key: victim.key }))
        : status(post(victimHooks[turn % victimHooks.length].path, JSON.stringify({ ref: `v${turn}` }), victimDelivery(turn)));
    // Each bomb would have held scheduler-service's event loop for about 30 s before. One delivery id for every
    // call: each call is rendered, but starts no new run, so what is measured is the rendering.
    const result = await victimUnderAttack(
      victimCall,
      (signal) => attackAtRate(signal, ATTACK_CALLS_PER_SECOND, (i) => status(post(bombs[i % 2].path, twoKilobytes, { 'idempotency-key': `bomb-${i % 2}` }))),
      TIMING,
    );
    expectVictimUnharmed(result);
    const attacks = result.attackResult as Map<number, number>;
    expect([...attacks.keys()]).toEqual([202]);
    expect(attacks.get(202)).toBeGreaterThan(20);

    // The attacker's run got what the budget rendered: a message cut short, not hours of work.
    const runs = (await runsOf(attacker, attackerAgent)).filter((r) => bombs.some((b) => triggerIdOf(b.path) === r.trigger_id));
    expect(runs).toHaveLength(2);
    expect(runs[0].goal).toMatch(/^x*$/); // this deep, the budget runs out before the first x
    expect(runs[0].goal.length).toBeLessThan(50_000);
  });

  it('(b) poisoned bodies fail only their own calls: every call of another tenant is accepted meanwhile', async () => {
    const poisonPaths = [(await endpoint(attacker, attackerAgent)).path, (await endpoint(attacker, attackerAgent)).path];
    const victimHooks = await endpoints(6, victim, victimAgent);
    const poisons = ['{"a":"nul \\u0000 here"}', '{"\\ud800":1}', '["\\udc00"]', '{"deep":"x","n":1e999}'];

    let n = 0;
    const result = await victimUnderAttack(
      () => status(post(victimHooks[n % victimHooks.length].path, JSON.stringify({ order: n }), victimDelivery(n++))),
      (signal) => attackAtRate(signal, 2 * ATTACK_CALLS_PER_SECOND, (i) => status(post(poisonPaths[i % 2], poisons[i % poisons.length]))),
      TIMING,
    );
    expectVictimUnharmed(result);
    expect([...result.baseline.statuses, ...result.underAttack.statuses].every((s) => s === 202)).toBe(true);
    expect([...(result.attackResult as Map<number, number>).keys()]).toEqual([400]);
    const refused = await post(poisonPaths[0], poisons[0]);
    expectProblem(refused, 400);
    expect(refused.body.detail).toMatch(/at \$\.a: a string must be well-formed .*NUL/);
  });

  it('(b) a start runs-service cannot store fails alone: the inbound calls in its group commit are accepted', async () => {
    const victimHooks = await endpoints(6, victim, victimAgent);
    const attackerTrigger = await system.others.scheduler!.get(TriggerStore).findWebhook(triggerIdOf((await endpoint(attacker, attackerAgent)).path));
    const starter = system.others.scheduler!.get(TriggeredRunStarter);
    // What no inbound call can send any more (the body rules refuse it first): a payload PostgreSQL's jsonb refuses.
    const poisoned = (i: number): TriggeredRunStart => ({
      user_id: attacker.userId,
      agent_id: attackerAgent,
      trigger_id: attackerTrigger!.id,
      trigger_kind: 'webhook',
      agent_generation: Number(attackerTrigger!.agentGeneration),
      delivery_key: `poison:${i}:${Math.random()}`,
      depth: 0,
      data: { payload: { a: 'nul \u0000 here' }, headers: {} },
    });
    const refusals: unknown[] = [];
    let n = 0;
    const result = await victimUnderAttack(
      () => status(post(victimHooks[n % victimHooks.length].path, JSON.stringify({ order: n }), victimDelivery(n++))),
      (signal) => attackAtRate(signal, ATTACK_CALLS_PER_SECOND, async (i) => (refusals.push(await starter.startOne(poisoned(i))), 0)),
      TIMING,
    );
    expectVictimUnharmed(result);
    expect([...result.baseline.statuses, ...result.underAttack.statuses].every((s) => s === 202)).toBe(true);
    expect(refusals.length).toBeGreaterThan(10);
    expect(refusals.every((r) => (r as { refused?: { status: number } }).refused?.status === 500)).toBe(true);
  });

  it('(c) failed calls use up a shared sender address, not the endpoints that work from it; unsigned calls do not use up a signed endpoint', async () => {
    const attackerHook = await endpoint(attacker, attackerAgent);
    const victimHooks = await endpoints(4, victim, victimAgent, { verification: 'github' });
    const unsignedTarget = await endpoint(victim, victimAgent, { verification: 'github' });
    const fromSender = { 'x-forwarded-for': SHARED_SENDER };
    let n = 0;
    const signedCall = (hook: { path: string; secret: string }, from: Record<string, string> = fromSender) => {
      const body = JSON.stringify({ push: n++ % VICTIM_DELIVERIES });
      return status(post(hook.path, body, { ...from, ...githubSigned(hook.secret, body) }));
    };

    // The attacker's endpoint, hammered with wrong tokens from the sender's address, past its allowance.
    const wrongToken = `/hooks/${triggerIdOf(attackerHook.path)}/${'A'.repeat(43)}`;
    const result = await victimUnderAttack(
      () => signedCall(victimHooks[n % victimHooks.length]),
      (signal) => attackAtRate(signal, 5 * ATTACK_CALLS_PER_SECOND, () => status(post(wrongToken, '{}', fromSender))),
      TIMING,
    );
    expectVictimUnharmed(result);
    expect([...result.baseline.statuses, ...result.underAttack.statuses].every((s) => s === 202)).toBe(true);
    const attacks = result.attackResult as Map<number, number>;
    expect(attacks.get(404)).toBeLessThanOrEqual(ADDRESS_ALLOWANCE + 5);
    expect(attacks.get(429)).toBeGreaterThan(0);
    const refused = await post(wrongToken, '{}', fromSender);
    expectProblem(refused, 429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not affected by the sender's failures.
    expect((await post(attackerHook.path, '{}', { 'x-forwarded-for': '198.51.100.7' })).status).toBe(202);

    // A URL that never passed verification is refused from the address while it is over its allowance.
    expectProblem(await post(unsignedTarget.path, '{}', fromSender), 429);
    // Anyone who knows a signed endpoint's URL, from addresses of their own: more unsigned calls than its allowance.
    expect(await signedCall(unsignedTarget, {})).toBe(202);
    const unsigned = await callMany(ENDPOINT_ALLOWANCE + 10, 32, (i) =>
      status(post(unsignedTarget.path, '{"forged":true}', { 'x-forwarded-for': `203.0.113.${i % 250}` })),
    );
    expect(new Set(unsigned)).toEqual(new Set([401]));
    expect(await signedCall(unsignedTarget, {})).toBe(202);
    // Verified now, it is reached from the shared address again, although that address is still over.
    expect(await signedCall(unsignedTarget)).toBe(202);
  });

  it('(d) a captured GitHub call replayed with a new delivery id answers the first run', async () => {
    const hook = await endpoint(victim, victimAgent, { verification: 'github' });
    const body = JSON.stringify({ ref: 'refs/heads/main', after: 'c0ffee' });
    const first = await post(hook.path, body, { ...githubSigned(hook.secret, body), 'x-github-delivery': 'delivery-1', 'x-github-event': 'push' });
    expect(first.status).toBe(202);
    for (const replayedId of ['delivery-2', 'delivery-3']) {
      const replay = await post(hook.path, body, { ...githubSigned(hook.secret, body), 'x-github-delivery': replayedId, 'x-github-event': 'push' });
      expect(replay.status).toBe(202);
      expect(replay.body.run_id).toBe(first.body.run_id);
    }
    const other = JSON.stringify({ ref: 'refs/heads/main', after: 'decade' });
    const next = await post(hook.path, other, { ...githubSigned(hook.secret, other), 'x-github-delivery': 'delivery-4' });
    expect(next.body.run_id).not.toBe(first.body.run_id);
    const runs = (await runsOf(victim, victimAgent)).filter((r) => r.trigger_id === triggerIdOf(hook.path));
    expect(runs).toHaveLength(2);
  });
});
