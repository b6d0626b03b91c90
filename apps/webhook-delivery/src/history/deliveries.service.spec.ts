import { randomUUID } from 'node:crypto';
import { SecretBox } from '@aas/platform';
import { ResourceNotFoundError } from '@aas/problem-details';
import { OwnedAgents } from '../agents/owned-agents';
import { FakeOwnedAgents } from '../agents/owned-agents.fake';
import { fakeWebhooksConfig } from '../config/webhooks-config.fake';
import { DeliveryEntity } from '../database/delivery.entity';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { FakeDeliveryQueue } from '../delivery/delivery-queue.fake';
import { SigningSecrets } from '../signing/signing-secrets';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import { WebhookQuota } from '../subscriptions/webhook-quota';
import { FakeWebhookStore } from '../subscriptions/webhook.store.fake';
import { DeliveriesService } from './deliveries.service';
import { FakeDeliveryHistoryStore } from './delivery-history.store.fake';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe(DeliveriesService.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask', 'performance'] }));
  afterEach(() => jest.useRealTimers());

  function setup() {
    const db = new InMemoryDatabase();
    const agents = new FakeOwnedAgents();
    const webhooks = new FakeWebhookStore(db);
    const subscriptions = new SubscriptionsService(
      webhooks,
      db.transactions,
      agents as unknown as OwnedAgents,
      new SigningSecrets(new SecretBox(Buffer.alloc(32, 1).toString('base64'))),
      new WebhookQuota(webhooks, fakeWebhooksConfig()),
    );
    const queue = new FakeDeliveryQueue();
    const sut = new DeliveriesService(new FakeDeliveryHistoryStore(db), subscriptions, queue as unknown as DeliveryQueue);
    const [user, agent] = [randomUUID(), randomUUID()];
    agents.own(user, agent);
    const webhook = db.addWebhook({ agentId: agent, userId: user });
    const ref = { user_id: user, agent_id: agent, webhook_id: webhook.id };
    const delivery = (fields: Partial<DeliveryEntity> = {}) => db.addDelivery(webhook.id, fields);
    const attempt = (deliveryId: string, n: number, statusCode: number) =>
      db.tables.attempts.push({ id: String(db.tables.attempts.length + 1), deliveryId, attempt: n, startedAt: new Date(NOW), durationMs: 5, statusCode, error: null, responseBody: 'x' });
    return { db, agents, queue, sut, user, agent, webhook, ref, delivery, attempt };
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
});
