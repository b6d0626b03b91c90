import { Logger } from '@nestjs/common';
import { DeliveryJobData } from '@aas/contracts';
import { QueueWorkersDrain, SecretBox } from '@aas/platform';
import { DelayedError, Job, UnrecoverableError } from 'bullmq';
import { Registry } from 'prom-client';
import { fakeWebhooksConfig } from '../config/webhooks-config.fake';
import { WebhooksEnv } from '../config/webhooks.env';
import { DeliveryEntity } from '../database/delivery.entity';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { WebhookEntity } from '../database/webhook.entity';
import { EndpointGate } from '../fairness/endpoint-gate';
import { FakeEndpointGate } from '../fairness/endpoint-gate.fake';
import { WebhookSender } from '../outbound/webhook-sender';
import { FakeWebhookSender } from '../outbound/webhook-sender.fake';
import { SigningSecrets } from '../signing/signing-secrets';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryQueue } from './delivery-queue';
import { FakeDeliveryQueue } from './delivery-queue.fake';
import { DeliveryProcessor } from './delivery.processor';
import { FakeDeliveryStore } from './delivery.store.fake';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const SECOND = 1_000;
const KEY = Buffer.alloc(32, 9).toString('base64');
const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';

/** A webhook-deliveries job as BullMQ hands it to the worker, keeping what the worker does with it. */
class FakeJob {
  readonly name = 'deliver';
  priority = 0;
  delayedUntil: number | undefined;

  constructor(
    readonly id: string,
    readonly data: object,
    /** Times the job was picked up, this one included. */
    readonly attemptsStarted = 1,
  ) {}

  async moveToDelayed(timestamp: number): Promise<void> {
    this.delayedUntil = timestamp;
  }

  async changePriority({ priority }: { priority: number }): Promise<void> {
    this.priority = priority;
  }
}

describe(DeliveryProcessor.name, () => {
  beforeAll(() => Logger.overrideLogger(false)); // the failed attempts it logs are expected here
  afterAll(() => Logger.overrideLogger(new Logger()));
  beforeEach(() => {
    jest.useFakeTimers({ now: NOW, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'performance'] });
    // No jitter: a retry waits exactly its delay, a circuit's wait exactly its own.
    jest.spyOn(Math, 'random').mockReturnValue(0.5);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  function setup(settings: Partial<WebhooksEnv> = {}) {
    const db = new InMemoryDatabase();
    const box = new SecretBox(KEY);
    const sender = new FakeWebhookSender();
    const gate = new FakeEndpointGate();
    const queue = new FakeDeliveryQueue();
    const registry = new Registry();
    const sut = new DeliveryProcessor(
      new FakeDeliveryStore(db),
      sender as unknown as WebhookSender,
      new SigningSecrets(box),
      fakeWebhooksConfig({ WEBHOOK_RETRY_DELAYS: '5s,5m,30m', ...settings }),
      {} as QueueWorkersDrain,
      new DeliveryMetrics(registry),
      queue as unknown as DeliveryQueue,
      gate as unknown as EndpointGate,
    );
    const webhook = db.addWebhook({ url: 'https://receiver.example.com/hook', secretSealed: box.seal(SECRET) });
    const delivery = (fields: Partial<DeliveryEntity> = {}, of: WebhookEntity = webhook) => db.addDelivery(of.id, fields);
    const stored = (id: string) => db.tables.deliveries.find((d) => d.id === id);
    const attempts = (id: string) => db.tables.attempts.filter((a) => a.deliveryId === id).map((a) => [a.attempt, a.statusCode, a.error]);
    /** Runs the job; answers 'delayed' when it was put back to wait on itself (BullMQ's DelayedError), else 'done'. */
    const run = async (job: FakeJob): Promise<'done' | 'delayed'> => {
      try {
        await sut.process(job as unknown as Job<DeliveryJobData>, 'token');
        return 'done';
      } catch (error) {
        if (error instanceof DelayedError) return 'delayed';
        throw error;
      }
    };
    const counted = async (name: string) => {
      const metric = await registry.getSingleMetric(`aas_${name}`)!.get();
      return Object.fromEntries(metric.values.filter((v) => v.value > 0).map((v) => [Object.values(v.labels).join(',') || 'total', v.value]));
    };
    return { db, sut, sender, gate, queue, webhook, delivery, stored, attempts, run, counted };
  }

  const jobOf = (delivery: { id: string }, attemptsStarted = 1) => new FakeJob(delivery.id, { delivery_id: delivery.id }, attemptsStarted);

  describe('a 2xx answer', () => {
    it('sends the delivery signed with its webhook secret and records it succeeded, once its slot is given back', async () => {
      const { sender, gate, delivery, stored, attempts, run, counted, webhook } = setup();
      const d = delivery({ body: '{"event":"run.started"}' });

      expect(await run(jobOf(d))).toBe('done');

      expect(sender.sent).toEqual([{ url: webhook.url, secret: SECRET, deliveryId: d.id, event: 'run.started', body: '{"event":"run.started"}', chain: null }]);
      expect(stored(d.id)).toMatchObject({ status: 'succeeded', attemptCount: 1, nextAttemptAt: null, finishedAt: expect.any(Date) });
      expect(attempts(d.id)).toEqual([[1, 204, null]]);
      expect(gate.released).toEqual([{ pass: expect.objectContaining({ webhookId: webhook.id, userId: webhook.userId }), health: 'answered' }]);
      expect(await counted('webhook_delivery_attempts_total')).toEqual({ succeeded: 1 });
    });

    it("sends the chain of the delivery's run along, for the installation's chain header", async () => {
      const { sender, delivery, run } = setup();
      const d = delivery({ chainRootId: '6c0b1f0e-8a4e-4c4e-9b7e-0d4c8f1e2a3b', chainDepth: 3 });
      await run(jobOf(d));
      expect(sender.sent[0].chain).toEqual({ rootRunId: '6c0b1f0e-8a4e-4c4e-9b7e-0d4c8f1e2a3b', depth: 3 });
    });
  });

  describe('a failed attempt with retries left', () => {
    it('on a 5xx, records the attempt, stays pending and waits on its own job for the next delay', async () => {
      const { sender, gate, delivery, stored, attempts, run, counted } = setup();
      const d = delivery();
      sender.answer(503);
      const job = jobOf(d);

      expect(await run(job)).toBe('delayed');

      expect(job.delayedUntil).toBe(NOW + 5 * SECOND);
      expect(stored(d.id)).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: new Date(NOW + 5 * SECOND), finishedAt: null });
      expect(attempts(d.id)).toEqual([[1, 503, null]]);
      expect(gate.released.map((r) => r.health)).toEqual(['failed']);
      expect(await counted('webhook_delivery_attempts_total')).toEqual({ retrying: 1 });
    });

    it('on no answer (a timeout), the same, with the error recorded; a later attempt waits the next delay', async () => {
      const { sender, delivery, stored, attempts, run } = setup();
      const d = delivery({ attemptCount: 1 });
      sender.timeOut();
      const job = jobOf(d, 2);

      expect(await run(job)).toBe('delayed');

      expect(job.delayedUntil).toBe(NOW + 300 * SECOND);
      expect(stored(d.id)).toMatchObject({ status: 'pending', attemptCount: 2 });
      expect(attempts(d.id)).toEqual([[2, null, 'no answer within 15000 ms']]);
    });

    it("waits as long as the receiver's Retry-After asks when that is longer than its delay, never shorter", async () => {
      const longer = setup();
      const d = longer.delivery();
      longer.sender.answer(429, 120 * SECOND);
      const job = jobOf(d);
      expect(await longer.run(job)).toBe('delayed');
      expect(job.delayedUntil).toBe(NOW + 120 * SECOND);

      const shorter = setup();
      const e = shorter.delivery();
      shorter.sender.answer(503, SECOND);
      const other = jobOf(e);
      expect(await shorter.run(other)).toBe('delayed');
      expect(other.delayedUntil).toBe(NOW + 5 * SECOND);
    });

    it("from a redelivery job, hands the retry over to the delivery's own job rather than keeping a second chain", async () => {
      const { sender, queue, delivery, stored, run } = setup();
      const d = delivery();
      sender.answer(500);
      const redelivery = new FakeJob(`${d.id}-redelivery-1`, { delivery_id: d.id });

      expect(await run(redelivery)).toBe('done');

      expect(redelivery.delayedUntil).toBeUndefined();
      expect(queue.calls).toEqual([{ call: 'ensureQueued', id: d.id, delayMs: 5 * SECOND }]);
      expect(stored(d.id)).toMatchObject({ status: 'pending', attemptCount: 1 });
    });
  });

  describe('a delivery that ends without a further retry', () => {
    it("on a 410, fails and disables its webhook; the webhook's next delivery is cancelled unsent", async () => {
      const { sender, delivery, stored, attempts, run, counted, db, webhook } = setup();
      const [gone, next] = [delivery(), delivery()];
      sender.answer(410);

      expect(await run(jobOf(gone))).toBe('done');
      expect(await run(jobOf(next))).toBe('done');

      expect(stored(gone.id)).toMatchObject({ status: 'failed', attemptCount: 1, nextAttemptAt: null });
      expect(attempts(gone.id)).toEqual([[1, 410, 'not retried: the receiver answered 410 Gone, so the webhook is disabled']]);
      expect(db.tables.webhooks.find((w) => w.id === webhook.id)).toMatchObject({ status: 'disabled', disabledReason: 'receiver_gone' });
      expect(stored(next.id)).toMatchObject({ status: 'cancelled', attemptCount: 0 });
      expect(sender.sent.map((s) => s.deliveryId)).toEqual([gone.id]);
      expect(await counted('webhook_delivery_attempts_total')).toEqual({ failed: 1, cancelled: 1 });
    });

    it('refused by the SSRF guard (the address is not public), fails at once with its retries left, saying why in the attempt', async () => {
      const { sender, delivery, stored, attempts, run, db, webhook } = setup();
      const d = delivery();
      sender.refuseAddress();
      const job = jobOf(d);

      expect(await run(job)).toBe('done');

      expect(job.delayedUntil).toBeUndefined();
      expect(stored(d.id)).toMatchObject({ status: 'failed', attemptCount: 1, nextAttemptAt: null, finishedAt: expect.any(Date) });
      const [[, status, error]] = attempts(d.id);
      expect([status, error]).toEqual([null, expect.stringMatching(/^refused: .* not a public address; not retried: this installation does not call non-public addresses/)]);
      // The webhook stays active: its URL, or its DNS, may be changed.
      expect(db.tables.webhooks.find((w) => w.id === webhook.id)?.status).toBe('active');
    });

    it('once the retry delays are used up, fails for good on its next failure', async () => {
      const { sender, delivery, stored, attempts, run } = setup();
      const d = delivery({ attemptCount: 3 });
      sender.answer(502);
      const job = jobOf(d, 4);

      expect(await run(job)).toBe('done');

      expect(job.delayedUntil).toBeUndefined();
      expect(stored(d.id)).toMatchObject({ status: 'failed', attemptCount: 4, nextAttemptAt: null, finishedAt: expect.any(Date) });
      expect(attempts(d.id)).toEqual([[4, 502, null]]);
    });

    it('with no retries configured, the first failure is the last', async () => {
      const { sender, delivery, stored, run } = setup({ WEBHOOK_RETRY_DELAYS: '' });
      const d = delivery();
      sender.answer(500);
      expect(await run(jobOf(d))).toBe('done');
      expect(stored(d.id)).toMatchObject({ status: 'failed', attemptCount: 1 });
    });
  });

  describe('a test event', () => {
    it('is sent once: a failure ends it, saying so', async () => {
      const { sender, delivery, stored, attempts, run } = setup();
      const d = delivery({ test: true });
      sender.answer(500);
      expect(await run(jobOf(d))).toBe('done');
      expect(stored(d.id)).toMatchObject({ status: 'failed', attemptCount: 1 });
      expect(attempts(d.id)).toEqual([[1, 500, 'not retried: a test event is sent once']]);
    });

    it("is sent to a disabled webhook too, to try its endpoint before enabling it", async () => {
      const { sender, delivery, stored, run, db, webhook } = setup();
      const d = delivery({ test: true });
      db.tables.webhooks.find((w) => w.id === webhook.id)!.status = 'disabled';
      expect(await run(jobOf(d))).toBe('done');
      expect(stored(d.id)).toMatchObject({ status: 'succeeded' });
      expect(sender.sent.map((s) => s.deliveryId)).toEqual([d.id]);
    });
  });

  describe("the webhook's health", () => {
    it('counts failed attempts in a row with the last error, and a success resets the count and is remembered', async () => {
      const { sender, delivery, run, db, webhook } = setup();
      const health = () => {
        const w = db.tables.webhooks.find((x) => x.id === webhook.id)!;
        return [w.consecutiveFailures, w.lastError, w.lastErrorAt?.getTime() ?? null, w.lastSuccessAt?.getTime() ?? null];
      };
      sender.answer(503).timeOut().answer(404);
      for (let i = 0; i < 3; i++) await run(jobOf(delivery()));
      expect(health()).toEqual([3, 'HTTP 404 Not Found', NOW, null]);
      jest.setSystemTime(NOW + 60_000);
      await run(jobOf(delivery()));
      expect(health()).toEqual([0, 'HTTP 404 Not Found', NOW, NOW + 60_000]);
    });
  });

  describe('a delivery that is no longer to be sent', () => {
    it('of a webhook disabled after it was queued, is cancelled without asking the gate or sending', async () => {
      const { sender, gate, delivery, stored, run, db, webhook } = setup();
      const d = delivery();
      db.tables.webhooks.find((w) => w.id === webhook.id)!.status = 'disabled';

      expect(await run(jobOf(d))).toBe('done');

      expect(stored(d.id)).toMatchObject({ status: 'cancelled', finishedAt: expect.any(Date) });
      expect([sender.sent, gate.admitted]).toEqual([[], []]);
    });

    it('already finished (a job that came again), or gone with its webhook, sends nothing and records nothing', async () => {
      const { sender, delivery, stored, run, db, webhook } = setup();
      const done = delivery({ status: 'succeeded', attemptCount: 1 });
      const ofDeleted = delivery();
      db.deleteWebhooks((w) => w.id === webhook.id);
      db.tables.deliveries.push({ ...done });

      expect(await run(jobOf(done))).toBe('done');
      expect(await run(jobOf(ofDeleted))).toBe('done');

      expect(sender.sent).toEqual([]);
      expect(stored(done.id)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    });

    it('fails a job whose payload is not a delivery for good', async () => {
      const { sut } = setup();
      const job = new FakeJob('x', { delivery_id: 'not-a-uuid' }) as unknown as Job<DeliveryJobData>;
      await expect(sut.process(job, 'token')).rejects.toBeInstanceOf(UnrecoverableError);
    });
  });

  describe('a delivery the endpoint gate holds back', () => {
    it('behind an open circuit, waits on its job for the circuit, without an attempt, shown as its next attempt, behind fresh jobs', async () => {
      const { sender, gate, delivery, stored, run, counted } = setup();
      const d = delivery({ attemptCount: 1 });
      gate.holds.push({ kind: 'circuit-open', waitMs: 60 * SECOND });
      const job = jobOf(d, 2);

      expect(await run(job)).toBe('delayed');

      // Stretched by a fifth of the random draw (0.5): 60 s * 1.1.
      expect(job.delayedUntil).toBe(NOW + 66 * SECOND);
      expect(job.priority).toBe(1);
      expect(stored(d.id)).toMatchObject({ status: 'pending', attemptCount: 1, nextAttemptAt: new Date(NOW + 66 * SECOND) });
      expect(sender.sent).toEqual([]);
      expect(await counted('webhook_delivery_deferrals_total')).toEqual({ circuit_open: 1 });
    });

    it('behind a full endpoint, waits a short backoff that is not written anywhere', async () => {
      const { gate, delivery, stored, run, counted } = setup();
      const d = delivery();
      gate.holds.push({ kind: 'endpoint-busy', heldMs: 0 });
      const job = jobOf(d, 3);

      expect(await run(job)).toBe('delayed');

      // Two deferrals before: 250 ms doubled twice, times (0.5 + 0.5 * 0.5).
      expect(job.delayedUntil).toBe(NOW + 750);
      expect(stored(d.id)).toMatchObject({ status: 'pending', attemptCount: 0, nextAttemptAt: null });
      expect(await counted('webhook_delivery_deferrals_total')).toEqual({ endpoint_busy: 1 });
    });

    it('kept waiting by its circuit past the span of its retries, fails without a further attempt', async () => {
      const { gate, delivery, stored, run, counted } = setup();
      // The retry span is 5s + 5m + 30m; it became pending an hour ago.
      const d = delivery({ pendingSince: new Date(NOW - 3_600_000) });
      gate.holds.push({ kind: 'circuit-open', waitMs: 60 * SECOND });

      expect(await run(jobOf(d))).toBe('done');

      expect(stored(d.id)).toMatchObject({ status: 'failed', attemptCount: 0, nextAttemptAt: null });
      expect(await counted('webhook_deliveries_given_up_total')).toEqual({ total: 1 });
    });

    it('records the attempt even when its slots cannot be given back (they lapse with their lease)', async () => {
      const { gate, delivery, stored, run } = setup();
      const d = delivery();
      gate.failNextRelease = true;
      expect(await run(jobOf(d))).toBe('done');
      expect(stored(d.id)).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    });

    it('counts the circuit an attempt opened or closed', async () => {
      const { sender, gate, delivery, run, counted } = setup();
      sender.answer(503);
      gate.nextChange = { kind: 'opened', cooldownMs: 60_000, afterProbe: false };
      await run(jobOf(delivery()));
      gate.nextChange = { kind: 'closed' };
      await run(jobOf(delivery()));
      expect(await counted('webhook_circuits_opened_total')).toEqual({ failures: 1 });
      expect(await counted('webhook_circuits_closed_total')).toEqual({ total: 1 });
    });
  });
});
