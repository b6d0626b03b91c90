import { RedisKeyspace } from '@aas/platform';
import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { Admission, Endpoint, EndpointGate, EndpointGateSettings, Pass } from './endpoint-gate';

const infra = isolatedInfra();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const SETTINGS: EndpointGateSettings = {
  maxInFlightPerEndpoint: 4,
  maxInFlightPerUser: 10,
  leaseMs: 60_000,
  circuit: { failureThreshold: 3, cooldownMs: 300, maxCooldownMs: 1_200 },
};

/** Gates as separate webhook-delivery processes would have them: each its own Redis connection, all on one keyspace. */
describe(EndpointGate.name, () => {
  const connections: Redis[] = [];
  const gate = (settings: Partial<EndpointGateSettings> = {}) => {
    const redis = new Redis(infra.redisUrl);
    connections.push(redis);
    return new EndpointGate(redis, new RedisKeyspace(infra.redisPrefix), { ...SETTINGS, ...settings });
  };
  const endpoint = (userId: string = randomUUID()): Endpoint => ({ webhookId: randomUUID(), userId });
  const passOf = (admission: Admission): Pass => {
    if (admission.kind !== 'admitted') throw new Error(`not admitted: ${JSON.stringify(admission)}`);
    return admission.pass;
  };
  const admitted = (answers: Admission[]) => answers.filter((a) => a.kind === 'admitted').map(passOf);

  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit()));
    await infra.dispose();
  });

  describe('in-flight limits', () => {
    it('never admits more than the webhook limit, however many processes ask at once', async () => {
      const gates = [gate(), gate(), gate()];
      const target = endpoint();
      const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => gates[i % 3].admit(target)));
      expect(admitted(answers)).toHaveLength(4);
      expect(answers.filter((a) => a.kind === 'endpoint-busy')).toHaveLength(56);
    });

    it('gives a slot back on release, and only that slot', async () => {
      const sut = gate();
      const target = endpoint();
      const passes = admitted(await Promise.all(Array.from({ length: 4 }, () => sut.admit(target))));
      expect((await sut.admit(target)).kind).toBe('endpoint-busy');
      await sut.release(passes[0], 'answered');
      expect((await sut.admit(target)).kind).toBe('admitted');
      expect((await sut.admit(target)).kind).toBe('endpoint-busy');
    });

    it("holds a user's webhooks together to the user limit, and leaves other users alone", async () => {
      const gates = [gate(), gate()];
      const userId = randomUUID();
      const hooks = Array.from({ length: 5 }, () => endpoint(userId));
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => gates[i % 2].admit(hooks[i % 5])));
      expect(admitted(answers)).toHaveLength(10);
      expect(answers.filter((a) => a.kind === 'user-busy')).toHaveLength(10);
      expect((await gates[0].admit(endpoint())).kind).toBe('admitted');
    });

    it('frees the slots of a worker that never gave them back once their lease lapses', async () => {
      const sut = gate({ leaseMs: 300 });
      const target = endpoint();
      expect(admitted(await Promise.all(Array.from({ length: 6 }, () => sut.admit(target))))).toHaveLength(4);
      expect((await sut.admit(target)).kind).toBe('endpoint-busy');
      await sleep(400);
      expect(admitted(await Promise.all(Array.from({ length: 6 }, () => sut.admit(target))))).toHaveLength(4);
    });

    it('tells a delivery held back how long the slots of the full set have been held (its median)', async () => {
      const sut = gate();
      const userId = randomUUID();
      const target = endpoint(userId);
      const passes = admitted(await Promise.all(Array.from({ length: 4 }, () => sut.admit(target))));
      await sleep(300);
      const busy = await sut.admit(target);
      expect(busy.kind).toBe('endpoint-busy');
      expect(busy.kind === 'endpoint-busy' && busy.heldMs).toBeGreaterThanOrEqual(250);
      // Three slots turning over fast and one stuck: the median is a fast one.
      for (const pass of passes.slice(1)) await sut.release(pass, 'answered');
      expect(admitted(await Promise.all(Array.from({ length: 3 }, () => sut.admit(target))))).toHaveLength(3);
      const again = await sut.admit(target);
      expect(again.kind === 'endpoint-busy' && again.heldMs).toBeLessThan(100);
    });

    it('admits everything when the limits are off', async () => {
      const sut = gate({ maxInFlightPerEndpoint: 0, maxInFlightPerUser: 0 });
      const target = endpoint();
      expect(admitted(await Promise.all(Array.from({ length: 50 }, () => sut.admit(target))))).toHaveLength(50);
    });
  });

  describe('circuit breaker', () => {
    /** One attempt through the gate with the given outcome; answers the circuit's change. */
    const attempt = async (sut: EndpointGate, target: Endpoint, health: 'answered' | 'failed') => sut.release(passOf(await sut.admit(target)), health);

    it('opens after the threshold of failures in a row, and then admits nothing until the cool-down is over', async () => {
      const sut = gate();
      const target = endpoint();
      expect(await attempt(sut, target, 'failed')).toBeUndefined();
      expect(await attempt(sut, target, 'failed')).toBeUndefined();
      expect(await attempt(sut, target, 'failed')).toEqual({ kind: 'opened', cooldownMs: 300, afterProbe: false });
      const held = await Promise.all(Array.from({ length: 5 }, () => gate().admit(target)));
      for (const answer of held) {
        expect(answer.kind).toBe('circuit-open');
        expect(answer.kind === 'circuit-open' && answer.waitMs).toBeGreaterThan(200);
        expect(answer.kind === 'circuit-open' && answer.waitMs).toBeLessThanOrEqual(300);
      }
      // Another webhook of the same user is not held back.
      expect((await sut.admit(endpoint(target.userId))).kind).toBe('admitted');
    });

    it('tells, in one round trip for many webhooks, until when each open circuit holds; nothing for closed, half-open or unknown ones', async () => {
      const sut = gate();
      const [open, closed, unknown] = [endpoint(), endpoint(), endpoint()];
      for (let i = 0; i < 3; i++) await attempt(sut, open, 'failed');
      await attempt(sut, closed, 'failed');
      const before = Date.now();

      const until = await sut.circuitsOpenUntil([open.webhookId, closed.webhookId, unknown.webhookId]);

      expect([...until.keys()]).toEqual([open.webhookId]);
      expect(until.get(open.webhookId)!.getTime()).toBeGreaterThan(before);
      expect(until.get(open.webhookId)!.getTime()).toBeLessThanOrEqual(before + 300);
      await sleep(350);
      expect((await sut.circuitsOpenUntil([open.webhookId])).size).toBe(0);
      expect((await gate({ circuit: { ...SETTINGS.circuit, failureThreshold: 0 } }).circuitsOpenUntil([open.webhookId])).size).toBe(0);
    });

    it('counts failures in a row only: an answer in between starts the count again', async () => {
      const sut = gate();
      const target = endpoint();
      for (const health of ['failed', 'failed', 'answered', 'failed', 'failed'] as const) expect(await attempt(sut, target, health)).toBeUndefined();
      expect(await attempt(sut, target, 'failed')).toMatchObject({ kind: 'opened' });
    });

    it('lets exactly one probe through when half-open, however many processes ask; the probe answering closes it', async () => {
      const sut = gate();
      const target = endpoint();
      for (let i = 0; i < 3; i++) await attempt(sut, target, 'failed');
      await sleep(350);
      const gates = [gate(), gate(), gate()];
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => gates[i % 3].admit(target)));
      const probes = admitted(answers);
      expect(probes).toHaveLength(1);
      expect(probes[0].probe).toBe(true);
      expect(answers.filter((a) => a.kind === 'probe-in-flight')).toHaveLength(29);

      expect(await sut.release(probes[0], 'answered')).toEqual({ kind: 'closed' });
      expect(admitted(await Promise.all(Array.from({ length: 6 }, () => sut.admit(target))))).toHaveLength(4);
    });

    it('opens again when the probe fails, for a cool-down doubled each time up to the cap', async () => {
      const sut = gate();
      const target = endpoint();
      for (let i = 0; i < 3; i++) await attempt(sut, target, 'failed');
      for (const cooldownMs of [600, 1_200, 1_200]) {
        const admission = await sut.admit(target);
        expect(admission.kind).toBe('circuit-open');
        await sleep(admission.kind === 'circuit-open' ? admission.waitMs + 20 : 0);
        expect(await attempt(sut, target, 'failed')).toEqual({ kind: 'opened', cooldownMs, afterProbe: true });
      }
      // Closing forgets the doubling: the next opening starts from the base again.
      await sleep(1_250);
      expect(await attempt(sut, target, 'answered')).toEqual({ kind: 'closed' });
      for (let i = 0; i < 2; i++) await attempt(sut, target, 'failed');
      expect(await attempt(sut, target, 'failed')).toEqual({ kind: 'opened', cooldownMs: 300, afterProbe: false });
    });

    it('ignores the failure of an attempt that began before the circuit opened; its answer closes it', async () => {
      const sut = gate();
      const target = endpoint();
      const straggler = passOf(await sut.admit(target));
      const late = passOf(await sut.admit(target));
      for (let i = 0; i < 3; i++) await attempt(sut, target, 'failed');
      expect(await sut.release(straggler, 'failed')).toBeUndefined();
      const held = await sut.admit(target);
      expect(held.kind === 'circuit-open' && held.waitMs).toBeGreaterThan(200);
      expect(await sut.release(late, 'answered')).toEqual({ kind: 'closed' });
      expect((await sut.admit(target)).kind).toBe('admitted');
    });

    it('lets another probe through when the probe holder died (its lease lapsed)', async () => {
      const sut = gate({ leaseMs: 300 });
      const target = endpoint();
      for (let i = 0; i < 3; i++) await attempt(sut, target, 'failed');
      await sleep(350);
      expect(passOf(await sut.admit(target)).probe).toBe(true);
      expect((await sut.admit(target)).kind).toBe('probe-in-flight');
      await sleep(350);
      expect(passOf(await sut.admit(target)).probe).toBe(true);
    });

    it('is ignored when turned off, also a circuit left open from before', async () => {
      const target = endpoint();
      const on = gate();
      for (let i = 0; i < 3; i++) await attempt(on, target, 'failed');
      expect((await on.admit(target)).kind).toBe('circuit-open');
      const off = gate({ circuit: { ...SETTINGS.circuit, failureThreshold: 0 } });
      const pass = passOf(await off.admit(target));
      for (let i = 0; i < 5; i++) expect(await off.release(pass, 'failed')).toBeUndefined();
    });
  });
});
