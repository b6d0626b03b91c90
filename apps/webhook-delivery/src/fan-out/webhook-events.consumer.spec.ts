import { randomUUID } from 'node:crypto';
import { AgentDeletedEvent, EventNames, RunLifecycleEvent } from '@aas/contracts';
import { Job, UnrecoverableError } from 'bullmq';
import { InMemoryDatabase } from '../database/in-memory-database.fake';
import { WebhookEntity } from '../database/webhook.entity';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { FakeDeliveryQueue } from '../delivery/delivery-queue.fake';
import { webhookBody } from '../signing/webhook-body';
import { FakeWebhookStore } from '../subscriptions/webhook.store.fake';
import { FakeFanOutStore } from './fan-out.store.fake';
import { WebhookEventsConsumer } from './webhook-events.consumer';

describe(WebhookEventsConsumer.name, () => {
  function setup() {
    const db = new InMemoryDatabase();
    const queue = new FakeDeliveryQueue();
    const sut = new WebhookEventsConsumer(new FakeFanOutStore(db), new FakeWebhookStore(db), queue as unknown as DeliveryQueue);
    const [user, agent] = [randomUUID(), randomUUID()];
    const webhook = (fields: Partial<WebhookEntity> = {}) => db.addWebhook({ agentId: agent, userId: user, events: [EventNames.RunCompleted], ...fields });
    const deliveriesOf = (jobId: string) => db.tables.deliveries.filter((d) => d.sourceEventId === jobId);
    return { db, queue, sut, user, agent, webhook, deliveriesOf };
  }

  function lifecycleJob(agentId: string, fields: Partial<RunLifecycleEvent> = {}): Job {
    const data: RunLifecycleEvent = {
      event: EventNames.RunCompleted,
      run_id: randomUUID(),
      agent_id: agentId,
      user_id: randomUUID(),
      status: 'completed',
      outcome: 'success',
      run_kind: 'manual',
      schedule_agent_id: null,
      timestamp: '2026-03-01T12:00:00.000Z',
      finished_at: '2026-03-01T12:00:00.000Z',
      agent_generation: 1,
      ...fields,
    };
    return { id: `event-${randomUUID()}`, name: data.event, data } as Job;
  }

  const agentDeleted = (data: AgentDeletedEvent) => ({ id: randomUUID(), name: EventNames.AgentDeleted, data }) as Job;

  describe('a run lifecycle event', () => {
    it('makes one delivery per active webhook of the agent subscribed to it, with the signed body, and queues each under its own id', async () => {
      const { queue, sut, agent, webhook, deliveriesOf } = setup();
      const subscribed = [webhook(), webhook({ events: [EventNames.RunStarted, EventNames.RunCompleted] })];
      webhook({ events: [EventNames.RunStarted] });
      webhook({ status: 'disabled' });
      webhook({ agentId: randomUUID() });
      const job = lifecycleJob(agent);

      await sut.process(job);

      const made = deliveriesOf(job.id!);
      expect(made.map((d) => d.webhookId).sort()).toEqual(subscribed.map((w) => w.id).sort());
      for (const delivery of made) {
        expect(delivery).toMatchObject({ status: 'pending', attemptCount: 0, event: EventNames.RunCompleted, body: webhookBody(job.data) });
      }
      expect(queue.calls).toEqual([{ call: 'queueNew', ids: expect.arrayContaining(made.map((d) => d.id)) }]);
      expect(queue.calls[0]).toMatchObject({ ids: { length: 2 } });
    });

    it("keeps the chain of the event's run with each delivery: its root and depth, or the run itself when it names no root", async () => {
      const { sut, agent, webhook, deliveriesOf } = setup();
      webhook();
      const root = randomUUID();
      const chained = lifecycleJob(agent, { chain_root_id: root, trigger_depth: 4 });
      const own = lifecycleJob(agent);
      await sut.process(chained);
      await sut.process(own);
      expect(deliveriesOf(chained.id!).map((d) => [d.chainRootId, d.chainDepth])).toEqual([[root, 4]]);
      expect(deliveriesOf(own.id!).map((d) => [d.chainRootId, d.chainDepth])).toEqual([[own.data.run_id, 0]]);
    });

    it('processed again makes no second delivery, and queues again only those still pending', async () => {
      const { queue, sut, agent, webhook, deliveriesOf } = setup();
      webhook();
      webhook();
      const job = lifecycleJob(agent);
      await sut.process(job);
      const [done, stillPending] = deliveriesOf(job.id!);
      done.status = 'succeeded';

      await sut.process(job);

      expect(deliveriesOf(job.id!)).toHaveLength(2);
      expect(queue.calls[1]).toEqual({ call: 'queueNew', ids: [stillPending.id] });
    });

    it("reaches only the webhooks of the run's agent generation and those from before generations; an event without one reaches every generation", async () => {
      const { sut, agent, webhook, deliveriesOf } = setup();
      const [older, current, legacy] = [webhook({ agentGeneration: '1' }), webhook({ agentGeneration: '2' }), webhook({ agentGeneration: null })];
      const reached = async (fields: Partial<RunLifecycleEvent>) => {
        const job = lifecycleJob(agent, fields);
        await sut.process(job);
        return deliveriesOf(job.id!).map((d) => d.webhookId).sort();
      };
      expect(await reached({ agent_generation: 2 })).toEqual([current.id, legacy.id].sort());
      expect(await reached({ agent_generation: 3 })).toEqual([legacy.id]);
      expect(await reached({ agent_generation: undefined })).toEqual([older.id, current.id, legacy.id].sort());
    });

    it('makes no delivery when no webhook is subscribed (its batch of jobs is empty)', async () => {
      const { queue, sut, agent, webhook, db } = setup();
      webhook({ events: [EventNames.RunStarted] });
      await sut.process(lifecycleJob(agent));
      expect(db.tables.deliveries).toEqual([]);
      expect(queue.calls).toEqual([{ call: 'queueNew', ids: [] }]);
    });

    it('fails a job its queue does not carry for good', async () => {
      const { sut, agent } = setup();
      const job = lifecycleJob(agent);
      await expect(sut.process({ ...job, data: { ...job.data, agent_id: 'x' } } as Job)).rejects.toBeInstanceOf(UnrecoverableError);
      await expect(sut.process({ ...job, name: 'run.unknown' } as Job)).rejects.toBeInstanceOf(UnrecoverableError);
    });
  });

  describe('agent.deleted', () => {
    it("deletes the user's webhooks of that generation and older ones (and their deliveries), never a newer agent's with the id", async () => {
      const { db, sut, user, agent, webhook } = setup();
      webhook({ agentGeneration: '1' });
      webhook({ agentGeneration: null });
      const [same, newer] = [webhook({ agentGeneration: '2' }), webhook({ agentGeneration: '3' })];
      const othersAgent = webhook({ userId: randomUUID(), agentGeneration: '1' });
      db.addDelivery(same.id);

      await sut.process(agentDeleted({ agent_id: agent, user_id: user, deleted_at: '2026-03-01T12:00:00.000Z', generation: 2 }));

      expect(db.tables.webhooks.map((w) => w.id).sort()).toEqual([newer.id, othersAgent.id].sort());
      expect(db.tables.deliveries).toEqual([]);
    });

    it("from a producer without generations, deletes every webhook of the user's agent", async () => {
      const { db, sut, user, agent, webhook } = setup();
      webhook({ agentGeneration: '7' });
      await sut.process(agentDeleted({ agent_id: agent, user_id: user, deleted_at: '2026-03-01T12:00:00.000Z' }));
      expect(db.tables.webhooks).toEqual([]);
    });
  });
});
