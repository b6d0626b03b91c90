import { randomUUID } from 'node:crypto';
import { SecretBox } from '@aas/platform';
import { ConflictError, ResourceNotFoundError, TooManyRequestsError } from '@aas/problem-details';
import { OwnedAgents } from '../agents/owned-agents';
import { FakeOwnedAgents } from '../agents/owned-agents.fake';
import { fakeWebhooksConfig } from '../config/webhooks-config.fake';
import { DeliveryEntity } from '../database/delivery.entity';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { FakeDeliveryQueue } from '../delivery/delivery-queue.fake';
import { BacklogFeeder } from '../delivery/backlog-feeder';
import { EndpointGate } from '../fairness/endpoint-gate';
import { FakeEndpointGate } from '../fairness/endpoint-gate.fake';
import { FakeHostLookup } from '../outbound/host-lookup.fake';
import { WebhookUrlCheck } from '../outbound/webhook-url-check';
import { SigningSecrets } from '../signing/signing-secrets';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import { WebhookQuota } from '../subscriptions/webhook-quota';
import { FakeWebhookStore } from '../subscriptions/webhook.store.fake';
import { DeliveriesService } from './deliveries.service';
import { FakeDeliveryHistoryStore } from './delivery-history.store.fake';
import { RedeliveryPacing } from './redelivery-pacing';
import { FakeRedeliveryPacing } from './redelivery-pacing.fake';
import { RequestedSendLimits } from './requested-send-limits';
import { FakeRequestedSendLimits } from './requested-send-limits.fake';
import { TEST_RUN_ID } from './test-event';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe(DeliveriesService.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  function setup(redeliverSinceMax = 1000, requestsPerUser = 3) {
    const db = new InMemoryDatabase();
    const agents = new FakeOwnedAgents();
    const webhooks = new FakeWebhookStore(db);
    const config = fakeWebhooksConfig({ WEBHOOK_REDELIVER_SINCE_MAX: redeliverSinceMax });
    const subscriptions = new SubscriptionsService(
      webhooks,
      db.transactions,
      agents as unknown as OwnedAgents,
      new SigningSecrets(new SecretBox(Buffer.alloc(32, 1).toString('base64'))),
      new WebhookQuota(webhooks, config),
      new WebhookUrlCheck(new FakeHostLookup(), config),
      new FakeEndpointGate() as unknown as EndpointGate,
    );
    const queue = new FakeDeliveryQueue();
    const limits = new FakeRequestedSendLimits(2, requestsPerUser);
    const pacing = new FakeRedeliveryPacing();
    const sut = new DeliveriesService(
      new FakeDeliveryHistoryStore(db),
      subscriptions,
      queue as unknown as DeliveryQueue,
      new BacklogFeeder(queue as unknown as DeliveryQueue),
      limits as unknown as RequestedSendLimits,
      pacing as unknown as RedeliveryPacing,
      config,
    );
    const [user, agent] = [randomUUID(), randomUUID()];
    agents.own(user, agent);
    const webhook = db.addWebhook({ agentId: agent, userId: user, events: ['run.completed', 'run.failed'] });
    const ref = { user_id: user, agent_id: agent, webhook_id: webhook.id };
    const delivery = (fields: Partial<DeliveryEntity> = {}) => db.addDelivery(webhook.id, fields);
    const attempt = (deliveryId: string, n: number, statusCode: number) =>
      db.tables.attempts.push({
        id: String(db.tables.attempts.length + 1),
        deliveryId,
        attempt: n,
        startedAt: new Date(NOW),
        durationMs: 5,
        statusCode,
        error: null,
        responseBody: 'x',
        requestHeaders: { 'webhook-id': deliveryId },
        responseHeaders: { 'content-type': 'text/plain' },
      });
    return { db, agents, queue, limits, sut, user, agent, webhook, ref, delivery, attempt };
  }

  describe('list', () => {
    it("pages a webhook's deliveries newest first, each with its attempts in order, and counts them all", async () => {
      const { sut, ref, delivery, attempt, db } = setup();
      const [first, second, third] = [delivery(), delivery(), delivery()];
      attempt(second.id, 2, 200);
      attempt(second.id, 1, 503);
      db.addDelivery(db.addWebhook().id);

      const page1 = await sut.list({ ...ref, page: 1, page_size: 2 });
      const page2 = await sut.list({ ...ref, page: 2, page_size: 2 });

      expect(page1.total).toBe(3);
      expect([page1, page2].map((p) => p.deliveries.map((d) => d.delivery_id))).toEqual([[third.id, second.id], [first.id]]);
      expect(page1.deliveries[1].attempts.map((a) => [a.attempt, a.status_code])).toEqual([
        [1, 503],
        [2, 200],
      ]);
      expect(page1.deliveries[1].payload).toEqual({ event: 'run.started' });
    });

    it('shows when a pending delivery is tried next, and nothing for a finished one', async () => {
      const { sut, ref, delivery } = setup();
      delivery({ status: 'succeeded', nextAttemptAt: new Date(NOW) });
      delivery({ nextAttemptAt: new Date(NOW + 5_000) });
      const { deliveries } = await sut.list(ref);
      expect(deliveries.map((d) => [d.status, d.next_attempt_at])).toEqual([
        ['pending', new Date(NOW + 5_000).toISOString()],
        ['succeeded', null],
      ]);
    });

    it("is a 404 for another user's webhook", async () => {
      const { sut, ref, delivery } = setup();
      delivery();
      await expect(sut.list({ ...ref, user_id: randomUUID() })).rejects.toBeInstanceOf(ResourceNotFoundError);
    });
  });

  describe('redeliver', () => {
    it('makes a finished delivery pending again from now, before its job is asked to send it, and answers it with its attempts', async () => {
      const { sut, ref, delivery, attempt, queue, db } = setup();
      const failed = delivery({ status: 'failed', attemptCount: 1, finishedAt: new Date(NOW - 1_000), createdAt: new Date(NOW - 60_000) });
      attempt(failed.id, 1, 500);
      const statusWhenQueued: string[] = [];
      const sendNow = queue.sendNow.bind(queue);
      queue.sendNow = async (id) => {
        statusWhenQueued.push(db.tables.deliveries.find((d) => d.id === id)!.status);
        return sendNow(id);
      };

      const answer = await sut.redeliver({ ...ref, delivery_id: failed.id });

      expect(answer).toMatchObject({ delivery_id: failed.id, status: 'pending', next_attempt_at: new Date(NOW).toISOString(), attempts: [{ attempt: 1, status_code: 500 }] });
      expect(db.tables.deliveries[0]).toMatchObject({ status: 'pending', finishedAt: null, nextAttemptAt: new Date(NOW), pendingSince: new Date(NOW), attemptCount: 1 });
      expect(queue.calls).toEqual([{ call: 'sendNow', id: failed.id }]);
      expect(statusWhenQueued).toEqual(['pending']);
    });

    it("is a 404 for another webhook's delivery, an unknown one, and an id that is not a UUID, and changes nothing", async () => {
      const { sut, ref, db, queue } = setup();
      const elsewhere = db.addDelivery(db.addWebhook({ userId: ref.user_id, agentId: ref.agent_id }).id, { status: 'failed' });
      for (const delivery_id of [elsewhere.id, randomUUID(), 'not-a-uuid']) {
        await expect(sut.redeliver({ ...ref, delivery_id })).rejects.toBeInstanceOf(ResourceNotFoundError);
      }
      expect(elsewhere.status).toBe('failed');
      expect(queue.calls).toEqual([]);
    });
  });

  describe('get', () => {
    it('answers one delivery with its attempts, their request and response headers included; a 404 through another webhook', async () => {
      const { sut, ref, delivery, attempt, db } = setup();
      const d = delivery({ status: 'failed' });
      attempt(d.id, 1, 500);
      const answer = await sut.get({ ...ref, delivery_id: d.id });
      expect(answer).toMatchObject({ delivery_id: d.id, test: false, attempts: [{ attempt: 1, status_code: 500, request_headers: { 'webhook-id': d.id }, response_headers: { 'content-type': 'text/plain' } }] });
      const other = db.addWebhook({ userId: ref.user_id, agentId: ref.agent_id });
      await expect(sut.get({ ...ref, webhook_id: other.id, delivery_id: d.id })).rejects.toBeInstanceOf(ResourceNotFoundError);
    });
  });

  describe('sendTest', () => {
    it("queues a test delivery of the webhook's first event by default, a sample of the real body with the nil run id, and answers it pending", async () => {
      const { sut, ref, queue, db, agent } = setup();

      const answer = await sut.sendTest(ref);

      expect(answer).toMatchObject({ event: 'run.completed', status: 'pending', test: true, attempts: [] });
      expect(answer.payload).toEqual({
        event: 'run.completed',
        timestamp: new Date(NOW).toISOString(),
        data: { run_id: TEST_RUN_ID, agent_id: agent, status: 'completed', outcome: 'success', finished_at: new Date(NOW).toISOString() },
      });
      expect(queue.calls).toEqual([{ call: 'queueNew', ids: [answer.delivery_id] }]);
      expect(db.tables.deliveries[0]).toMatchObject({ id: answer.delivery_id, test: true, sourceEventId: expect.stringMatching(/^test:/) });
      expect((await sut.sendTest({ ...ref, event: 'run.started' })).payload).toEqual({
        event: 'run.started',
        timestamp: new Date(NOW).toISOString(),
        data: { run_id: TEST_RUN_ID, agent_id: agent, status: 'in_progress' },
      });
    });

    it("is limited per webhook and per user (429), and another user's attempts on the webhook are 404s that use up nothing", async () => {
      const { sut, ref, db, queue } = setup();
      const intruder = { ...ref, user_id: randomUUID() };
      for (let i = 0; i < 5; i++) await expect(sut.sendTest(intruder)).rejects.toBeInstanceOf(ResourceNotFoundError);
      await sut.sendTest(ref);
      await sut.sendTest(ref);
      await expect(sut.sendTest(ref)).rejects.toBeInstanceOf(TooManyRequestsError);
      // A second webhook of the user has its own allowance, but the user's (3) is shared.
      const second = db.addWebhook({ userId: ref.user_id, agentId: ref.agent_id, events: ['run.started'] });
      await sut.sendTest({ ...ref, webhook_id: second.id });
      await expect(sut.sendTest({ ...ref, webhook_id: second.id })).rejects.toBeInstanceOf(TooManyRequestsError);
      expect(queue.calls).toHaveLength(3);
    });
  });

  describe('redeliverSince', () => {
    it('makes the failed deliveries made since the time pending, oldest first, up to the bound, and says more are left; test events and others stay', async () => {
      const { sut, ref, delivery, queue, db } = setup(2);
      const at = (minutes: number) => new Date(NOW - minutes * 60_000);
      const before = delivery({ status: 'failed', createdAt: at(30) });
      const [oldest, next, newest] = [delivery({ status: 'failed', createdAt: at(20) }), delivery({ status: 'failed', createdAt: at(10) }), delivery({ status: 'failed', createdAt: at(5) })];
      const test = delivery({ status: 'failed', test: true, createdAt: at(5) });
      const ok = delivery({ status: 'succeeded', createdAt: at(5) });

      expect(await sut.redeliverSince({ ...ref, since: at(25).toISOString() })).toEqual({ queued: 2, more: true });
      expect(await sut.redeliverSince({ ...ref, since: at(25).toISOString() })).toEqual({ queued: 1, more: false });

      // Paced, the user's requests one after the other: 50 ms apart, each due (and shown) at its turn.
      expect(queue.calls).toEqual([
        { call: 'queueBacklog', deliveries: [{ id: oldest.id, delayMs: 0 }, { id: next.id, delayMs: 50 }] },
        { call: 'queueBacklog', deliveries: [{ id: newest.id, delayMs: 100 }] },
      ]);
      const status = (id: string) => db.tables.deliveries.find((d) => d.id === id)!;
      expect([before, oldest, newest, test, ok].map((d) => status(d.id).status)).toEqual(['failed', 'pending', 'pending', 'failed', 'succeeded']);
      expect(status(next.id)).toMatchObject({ finishedAt: null, nextAttemptAt: new Date(NOW + 50), pendingSince: new Date(NOW + 50) });
    });

    it('asked again (a double click), queues nothing twice: the deliveries are pending already', async () => {
      const { sut, ref, delivery, queue } = setup();
      delivery({ status: 'failed' });
      const since = new Date(NOW - 60_000).toISOString();
      expect(await sut.redeliverSince({ ...ref, since })).toEqual({ queued: 1, more: false });
      expect(await sut.redeliverSince({ ...ref, since })).toEqual({ queued: 0, more: false });
      expect(queue.calls).toHaveLength(1);
    });

    it('asked twice at once, each delivery is queued by one of them, and the turns the loser took are given back', async () => {
      const { sut, ref, delivery, queue } = setup();
      for (let i = 0; i < 3; i++) delivery({ status: 'failed' });
      const since = new Date(NOW - 60_000).toISOString();
      const answers = await Promise.all([sut.redeliverSince({ ...ref, since }), sut.redeliverSince({ ...ref, since })]);
      expect(answers.map((a) => a.queued).sort()).toEqual([0, 3]);
      delivery({ status: 'failed' });
      await sut.redeliverSince({ ...ref, since });
      // Right after the winner's three turns (0, 50, 100 ms), not after the loser's too.
      expect(queue.calls.at(-1)).toEqual({ call: 'queueBacklog', deliveries: [{ id: expect.any(String), delayMs: 150 }] });
    });

    it('queues as many as fit in the next 30 s of the user\'s pacing (more: true), then is a 429 leaving the deliveries failed', async () => {
      const { sut, ref, delivery, db } = setup(1000, 100);
      const at = new Date(NOW - 60_000);
      for (let i = 0; i < 700; i++) delivery({ status: 'failed', createdAt: at });
      const since = at.toISOString();
      // 30 s at 50 ms apart: 600 turns.
      expect(await sut.redeliverSince({ ...ref, since })).toEqual({ queued: 600, more: true });
      await expect(sut.redeliverSince({ ...ref, since })).rejects.toThrow(new TooManyRequestsError('no room before the horizon', 1));
      expect(db.tables.deliveries.filter((d) => d.status === 'failed')).toHaveLength(100);
      // Once some have gone out, there is room again.
      jest.setSystemTime(NOW + 5_000);
      expect(await sut.redeliverSince({ ...ref, since })).toEqual({ queued: 100, more: false });
    });

    it("is a 409 for a disabled webhook and a 404 for another user's, changing nothing; counted against the user's allowance", async () => {
      const { sut, ref, delivery, db, webhook } = setup();
      const failed = delivery({ status: 'failed' });
      const since = new Date(NOW - 60_000).toISOString();
      await expect(sut.redeliverSince({ ...ref, user_id: randomUUID(), since })).rejects.toBeInstanceOf(ResourceNotFoundError);
      db.tables.webhooks.find((w) => w.id === webhook.id)!.status = 'disabled';
      await expect(sut.redeliverSince({ ...ref, since })).rejects.toBeInstanceOf(ConflictError);
      expect(failed.status).toBe('failed');
      db.tables.webhooks.find((w) => w.id === webhook.id)!.status = 'active';
      for (let i = 0; i < 3; i++) await sut.redeliverSince({ ...ref, since });
      await expect(sut.redeliverSince({ ...ref, since })).rejects.toBeInstanceOf(TooManyRequestsError);
    });
  });
});
