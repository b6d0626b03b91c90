import { Logger } from '@nestjs/common';
import { CreateWebhookMessage, DeliveryJobData, EventNames, RunLifecycleEvent, RunLifecycleEventName } from '@aas/contracts';
import { dataSourceOptions, migrateSchema, PostgresTransactions, QueueWorkersDrain, SecretBox, Transactions } from '@aas/platform';
import { DelayedError, Job } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { isolatedInfra } from '../../../test/support/isolated-infra';
import { OwnedAgents } from './agents/owned-agents';
import { FakeOwnedAgents } from './agents/owned-agents.fake';
import { fakeWebhooksConfig } from './config/webhooks-config.fake';
import { InMemoryDatabase } from './database/in-memory-database.fake';
import { WEBHOOKS_SCHEMA } from './database/webhooks-schema';
import { DeliveryMetrics } from './delivery/delivery-metrics';
import { BacklogFeeder } from './delivery/backlog-feeder';
import { DeliveryQueue } from './delivery/delivery-queue';
import { FakeDeliveryQueue } from './delivery/delivery-queue.fake';
import { DeliveryProcessor } from './delivery/delivery.processor';
import { DeliveryStore } from './delivery/delivery.store';
import { FakeDeliveryStore } from './delivery/delivery.store.fake';
import { PostgresDeliveryStore } from './delivery/postgres-delivery.store';
import { EndpointGate } from './fairness/endpoint-gate';
import { FakeEndpointGate } from './fairness/endpoint-gate.fake';
import { FakeHostLookup } from './outbound/host-lookup.fake';
import { WebhookUrlCheck } from './outbound/webhook-url-check';
import { RequestedSendLimits } from './history/requested-send-limits';
import { FakeRequestedSendLimits } from './history/requested-send-limits.fake';
import { RedeliveryPacing } from './history/redelivery-pacing';
import { FakeRedeliveryPacing } from './history/redelivery-pacing.fake';
import { FanOutStore } from './fan-out/fan-out.store';
import { FakeFanOutStore } from './fan-out/fan-out.store.fake';
import { PostgresFanOutStore } from './fan-out/postgres-fan-out.store';
import { WebhookEventsConsumer } from './fan-out/webhook-events.consumer';
import { DeliveriesService } from './history/deliveries.service';
import { DeliveryHistoryStore } from './history/delivery-history.store';
import { FakeDeliveryHistoryStore } from './history/delivery-history.store.fake';
import { PostgresDeliveryHistoryStore } from './history/postgres-delivery-history.store';
import { DeliverySweep } from './maintenance/delivery-sweep';
import { LostDeliveryStore } from './maintenance/lost-delivery.store';
import { FakeLostDeliveryStore } from './maintenance/lost-delivery.store.fake';
import { PostgresLostDeliveryStore } from './maintenance/postgres-lost-delivery.store';
import { WebhookSender } from './outbound/webhook-sender';
import { FakeWebhookSender } from './outbound/webhook-sender.fake';
import { SigningSecrets } from './signing/signing-secrets';
import { PostgresWebhookStore } from './subscriptions/postgres-webhook.store';
import { SubscriptionsService } from './subscriptions/subscriptions.service';
import { WebhookQuota } from './subscriptions/webhook-quota';
import { WebhookStore } from './subscriptions/webhook.store';
import { FakeWebhookStore } from './subscriptions/webhook.store.fake';

interface Stores {
  transactions: Transactions;
  webhooks: WebhookStore;
  fanOut: FanOutStore;
  deliveries: DeliveryStore;
  history: DeliveryHistoryStore;
  lost: LostDeliveryStore;
}

const KEY = Buffer.alloc(32, 5).toString('base64');

/** The services of webhook-delivery on one set of stores; what is not PostgreSQL (agents-service, Redis, receivers) is faked alike on both. */
function servicesOn(stores: Stores) {
  const config = fakeWebhooksConfig({ QUOTA_WEBHOOKS_PER_AGENT: 2, WEBHOOK_RETRY_DELAYS: '5s,5m', WEBHOOK_REDELIVER_SINCE_MAX: 1 });
  const agents = new FakeOwnedAgents();
  const queue = new FakeDeliveryQueue();
  const sender = new FakeWebhookSender();
  const secrets = new SigningSecrets(new SecretBox(KEY));
  const asQueue = queue as unknown as DeliveryQueue;
  const gate = new FakeEndpointGate() as unknown as EndpointGate;
  const subscriptions = new SubscriptionsService(
    stores.webhooks,
    stores.transactions,
    agents as unknown as OwnedAgents,
    secrets,
    new WebhookQuota(stores.webhooks, config),
    new WebhookUrlCheck(new FakeHostLookup(), config),
    gate,
  );
  const processor = new DeliveryProcessor(
    stores.deliveries,
    sender as unknown as WebhookSender,
    secrets,
    config,
    {} as QueueWorkersDrain,
    new DeliveryMetrics(new Registry()),
    asQueue,
    gate,
  );
  return {
    agents,
    queue,
    sender,
    subscriptions,
    processor,
    consumer: new WebhookEventsConsumer(stores.fanOut, stores.webhooks, asQueue),
    history: new DeliveriesService(
      stores.history,
      subscriptions,
      asQueue,
      new BacklogFeeder(asQueue),
      new FakeRequestedSendLimits() as unknown as RequestedSendLimits,
      new FakeRedeliveryPacing() as unknown as RedeliveryPacing,
      config,
    ),
    sweep: new DeliverySweep(stores.lost, asQueue),
  };
}

type Services = ReturnType<typeof servicesOn>;

/** The error a call failed with, by its class, or 'ok'. */
async function outcome(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'ok',
    (error: Error) => error.constructor.name,
  );
}

/** Runs a delivery job through the worker: 'delayed' when it was put back to wait on itself. */
async function deliver(s: Services, deliveryId: string, jobId = deliveryId): Promise<string> {
  const job = { id: jobId, name: 'deliver', data: { delivery_id: deliveryId }, attemptsStarted: 1, priority: 0, moveToDelayed: async () => undefined };
  return s.processor.process(job as unknown as Job<DeliveryJobData>, 'token').then(
    () => 'done',
    (error: Error) => (error instanceof DelayedError ? 'delayed' : error.constructor.name),
  );
}

function lifecycleJob(jobId: string, agentId: string, event: RunLifecycleEventName, generation?: number): Job {
  const data: RunLifecycleEvent = {
    event,
    run_id: randomUUID(),
    agent_id: agentId,
    user_id: randomUUID(),
    status: 'completed',
    run_kind: 'manual',
    schedule_agent_id: null,
    timestamp: '2026-03-01T12:00:00.000Z',
    agent_generation: generation,
  };
  return { id: jobId, name: event, data } as Job;
}

const infra = isolatedInfra();
const options = { ...WEBHOOKS_SCHEMA, url: infra.databaseUrl, poolSize: 4 };

/**
 * The in-memory fakes the unit tests use answer as the PostgreSQL stores do: each scenario runs the
 * real services once on the stores and once on the fakes, and must see the same.
 */
describe('the fakes of the webhook-delivery stores', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    Logger.overrideLogger(false); // the failed attempts the worker logs are expected here
    await migrateSchema(options);
    dataSource = new DataSource(dataSourceOptions(options));
    await dataSource.initialize();
  });
  afterAll(async () => {
    Logger.overrideLogger(new Logger());
    await dataSource.destroy();
    await infra.dispose();
  });

  const postgres = (): Services =>
    servicesOn({
      transactions: new PostgresTransactions(dataSource),
      webhooks: new PostgresWebhookStore(dataSource),
      fanOut: new PostgresFanOutStore(dataSource),
      deliveries: new PostgresDeliveryStore(dataSource),
      history: new PostgresDeliveryHistoryStore(dataSource),
      lost: new PostgresLostDeliveryStore(dataSource),
    });

  function fake(): Services {
    const db = new InMemoryDatabase();
    return servicesOn({
      transactions: db.transactions,
      webhooks: new FakeWebhookStore(db),
      fanOut: new FakeFanOutStore(db),
      deliveries: new FakeDeliveryStore(db),
      history: new FakeDeliveryHistoryStore(db),
      lost: new FakeLostDeliveryStore(db),
    });
  }

  /** Runs the scenario on both, with the same user, agent and event ids, and expects the same answers. */
  async function same<T>(scenario: (s: Services, ids: { user: string; agent: string; run: string }) => Promise<T>): Promise<void> {
    const ids = { user: randomUUID(), agent: randomUUID(), run: randomUUID() };
    const onPostgres = await scenario(postgres(), ids);
    expect(await scenario(fake(), ids)).toEqual(onPostgres);
  }

  it('subscriptions: the quota, generations, updates, deletion and agent.deleted', () =>
    same(async (s, { user, agent, run }) => {
      s.agents.own(user, agent, 1);
      const create = (events = [EventNames.RunCompleted as string]) =>
        s.subscriptions.create({ user_id: user, agent_id: agent, url: 'https://receiver.example.com/hook', events } as CreateWebhookMessage);
      const [first, second] = [await create(), await create([EventNames.RunStarted])];
      const overQuota = await outcome(create());
      const ref = { user_id: user, agent_id: agent, webhook_id: first.webhook_id };
      const updated = await s.subscriptions.update({ ...ref, status: 'disabled', events: [EventNames.RunFailed] });
      const stillOverQuota = await outcome(create());
      await s.subscriptions.delete(user, agent, second.webhook_id);
      const third = await create();
      // The agent is deleted and its id taken by a new agent: the old webhooks are no longer its.
      s.agents.own(user, agent, 2);
      const newAgents = [await outcome(s.subscriptions.get(user, agent, first.webhook_id)), (await s.subscriptions.list(user, agent)).length];
      const fourth = await create();
      await s.consumer.process({ id: run, name: EventNames.AgentDeleted, data: { agent_id: agent, user_id: user, deleted_at: '2026-03-01T12:00:00Z', generation: 1 } } as Job);
      const label = new Map([first, second, third, fourth].map((w, i) => [w.webhook_id, `w${i + 1}`]));
      const listed = (await s.subscriptions.list(user, agent)).map((w) => [label.get(w.webhook_id), w.status, w.events]);
      s.agents.own(user, agent, 1);
      const oldGone = await outcome(s.subscriptions.get(user, agent, third.webhook_id));
      return { overQuota, updated: [updated.status, updated.events], stillOverQuota, newAgents, listed, oldGone };
    }));

  it('fan-out, the worker, history, redelivery and the sweep', () =>
    same(async (s, { user, agent, run }) => {
      s.agents.own(user, agent, 3);
      const create = (events: string[]) =>
        s.subscriptions.create({ user_id: user, agent_id: agent, url: 'https://receiver.example.com/hook', events } as CreateWebhookMessage);
      const [ok, flaky] = [await create([EventNames.RunCompleted]), await create([EventNames.RunCompleted, EventNames.RunStarted])];
      const [done, started, otherGeneration] = [`${run}-done`, `${run}-started`, `${run}-old`];
      await s.consumer.process(lifecycleJob(done, agent, EventNames.RunCompleted, 3));
      await s.consumer.process(lifecycleJob(done, agent, EventNames.RunCompleted, 3));
      await s.consumer.process(lifecycleJob(started, agent, EventNames.RunStarted));
      await s.consumer.process(lifecycleJob(otherGeneration, agent, EventNames.RunCompleted, 2));
      const ref = (webhook: { webhook_id: string }) => ({ user_id: user, agent_id: agent, webhook_id: webhook.webhook_id });
      const deliveriesOf = async (webhook: { webhook_id: string }) => (await s.history.list(ref(webhook))).deliveries;
      const made = [(await deliveriesOf(ok)).length, (await deliveriesOf(flaky)).length];

      const [okDelivery] = await deliveriesOf(ok);
      const [flakyStarted, flakyDone] = await deliveriesOf(flaky);
      const worked = [await deliver(s, okDelivery.delivery_id)];
      s.sender.answer(503);
      worked.push(await deliver(s, flakyDone.delivery_id));
      s.sender.answer(500);
      worked.push(await deliver(s, flakyDone.delivery_id, `${flakyDone.delivery_id}-redelivery-1`));
      // Succeeded already: its job, run again, finds nothing to send.
      worked.push(await deliver(s, okDelivery.delivery_id));
      const redelivered = await s.history.redeliver({ ...ref(ok), delivery_id: okDelivery.delivery_id });
      s.sender.answer(410);
      worked.push(await deliver(s, okDelivery.delivery_id));

      // Every job has run but flaky's retry; flaky's run.started delivery, never sent, has lost its job.
      for (const id of [...s.queue.live]) if (id !== flakyDone.delivery_id) s.queue.forget(id);
      await sleep(5);
      await s.sweep.requeueLost(() => false, 500, 0);
      const label = new Map([
        [okDelivery.delivery_id, 'ok'],
        [flakyStarted.delivery_id, 'flaky-started'],
        [flakyDone.delivery_id, 'flaky-done'],
      ]);
      // What the sweep queued (the worker hands retries over with a delay): another test's deliveries left out.
      const swept = s.queue.calls.flatMap((c) => (c.call === 'ensureQueued' && c.delayMs === 0 && label.has(c.id) ? [label.get(c.id)] : []));

      const history = async (webhook: { webhook_id: string }) =>
        (await deliveriesOf(webhook)).map((d) => [d.event, d.status, d.next_attempt_at === null, d.attempts.map((a) => [a.attempt, a.status_code])]);
      const webhooks = (await s.subscriptions.list(user, agent)).map((w) => w.status);
      return {
        made,
        worked,
        redelivered: [redelivered.status, redelivered.attempts.length],
        sent: s.sender.sent.length,
        ok: await history(ok),
        flaky: await history(flaky),
        webhooks,
        swept,
      };
    }));

  it('health, test events, one delivery, and redelivering the failed ones since a time', () =>
    same(async (s, { user, agent, run }) => {
      s.agents.own(user, agent, 1);
      const hook = await s.subscriptions.create({ user_id: user, agent_id: agent, url: 'https://receiver.example.com/hook', events: [EventNames.RunCompleted] } as CreateWebhookMessage);
      const ref = { user_id: user, agent_id: agent, webhook_id: hook.webhook_id };
      const health = async () => {
        const { consecutive_failures, last_error, last_success_at, disabled_reason } = (await s.subscriptions.get(user, agent, hook.webhook_id)).health;
        return [consecutive_failures, last_error, last_success_at !== null, disabled_reason];
      };
      const since = new Date(Date.now() - 1_000).toISOString();
      for (const n of [1, 2]) await s.consumer.process(lifecycleJob(`${run}-${n}`, agent, EventNames.RunCompleted, 1));
      const [second, first] = (await s.history.list(ref)).deliveries;
      s.sender.answer(500).answer(503);
      await deliver(s, first.delivery_id);
      await deliver(s, second.delivery_id);
      const afterFailures = await health();
      // Out of retries ('5s,5m'): both fail for good on their third attempt, a 502 and a refused address.
      s.sender.answer(502).answer(502).answer(502).refuseAddress();
      for (const id of [first.delivery_id, second.delivery_id, first.delivery_id, second.delivery_id]) await deliver(s, id);
      const failed = (await s.history.list(ref)).deliveries.map((d) => [d.status, d.attempts.map((a) => a.error)]);

      const test = await s.history.sendTest({ ...ref, event: EventNames.RunStarted });
      await deliver(s, test.delivery_id);
      const tested = await s.history.get({ ...ref, delivery_id: test.delivery_id });
      const afterRecovery = await health();
      const inState = async (filter_status: 'failed' | 'succeeded' | 'pending') => {
        const { deliveries, total } = await s.history.list({ ...ref, filter_status });
        return [total, deliveries.map((d) => [d.status, d.test])];
      };
      const filtered = [await inState('failed'), await inState('succeeded'), await inState('pending')];

      const bulk = [await s.history.redeliverSince({ ...ref, since }), await s.history.redeliverSince({ ...ref, since }), await s.history.redeliverSince({ ...ref, since })];
      s.sender.answer(410);
      await deliver(s, first.delivery_id);
      return {
        afterFailures,
        failed,
        filtered,
        tested: [tested.test, tested.status, tested.event, tested.attempts.map((a) => [a.status_code, Object.keys(a.request_headers ?? {}).length > 0])],
        afterRecovery,
        bulk,
        gone: await health(),
      };
    }));
});
