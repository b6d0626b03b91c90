import { randomUUID } from 'node:crypto';
import { EventNames, QueueNames, RunLifecycleEvent, RunLifecycleEventName, RunsPurgedEvent } from '@aas/contracts';
import { dataSourceOptions, migrateSchema } from '@aas/platform';
import { Job, Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { isolatedInfra } from '../../../../test/support/isolated-infra';
import { WEBHOOKS_SCHEMA } from '../database/webhooks-schema';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { PostgresWebhookStore } from '../subscriptions/postgres-webhook.store';
import { PostgresFanOutStore } from './postgres-fan-out.store';
import { WebhookEventsConsumer } from './webhook-events.consumer';

const infra = isolatedInfra();
const options = { ...WEBHOOKS_SCHEMA, url: infra.databaseUrl, poolSize: 2 };

/** The fan-out on its PostgreSQL store and a real queue (no worker takes the jobs). */
describe(WebhookEventsConsumer.name, () => {
  let dataSource: DataSource;
  let queue: Queue;
  let sut: WebhookEventsConsumer;

  beforeAll(async () => {
    await migrateSchema(options);
    dataSource = new DataSource(dataSourceOptions(options));
    await dataSource.initialize();
    queue = new Queue(QueueNames.WebhookDeliveries, { connection: { url: infra.redisUrl }, prefix: infra.redisPrefix });
    sut = new WebhookEventsConsumer(new PostgresFanOutStore(dataSource), new PostgresWebhookStore(dataSource), new DeliveryQueue(queue));
  });
  afterAll(async () => {
    await queue.close();
    await dataSource.destroy();
    await infra.dispose();
  });

  async function webhook(agentId: string, events: string[], status = 'active'): Promise<string> {
    const [row] = await dataSource.query(
      `INSERT INTO webhooks (agent_id, user_id, url, events, status, secret_sealed)
       VALUES ($1, gen_random_uuid(), 'https://example.com/hook', $2, $3, 'sealed') RETURNING id`,
      [agentId, events, status],
    );
    return row.id;
  }

  function lifecycleJob(agentId: string, event: RunLifecycleEventName = EventNames.RunStarted, runId = randomUUID()): Job<RunLifecycleEvent> {
    const data: RunLifecycleEvent = {
      event,
      run_id: runId,
      agent_id: agentId,
      user_id: randomUUID(),
      status: 'in_progress',
      run_kind: 'manual',
      schedule_agent_id: null,
      timestamp: new Date().toISOString(),
    };
    return { id: `event-${randomUUID()}`, name: event, data } as Job<RunLifecycleEvent>;
  }

  async function deliveriesOf(sourceEventId: string): Promise<{ id: string; webhook_id: string }[]> {
    return dataSource.query(`SELECT id, webhook_id FROM deliveries WHERE source_event_id = $1 ORDER BY webhook_id`, [sourceEventId]);
  }

  it('makes one delivery per active webhook of the agent subscribed to the event, each queued under its own id', async () => {
    const agentId = randomUUID();
    const subscribed = [await webhook(agentId, [EventNames.RunStarted]), await webhook(agentId, [EventNames.RunStarted, EventNames.RunCompleted])];
    await webhook(agentId, [EventNames.RunCompleted]);
    await webhook(agentId, [EventNames.RunStarted], 'disabled');
    await webhook(randomUUID(), [EventNames.RunStarted]);
    const job = lifecycleJob(agentId);

    await sut.process(job);

    const made = await deliveriesOf(job.id!);
    expect(made.map((d) => d.webhook_id)).toEqual([...subscribed].sort());
    for (const delivery of made) expect((await queue.getJob(delivery.id))?.data).toEqual({ delivery_id: delivery.id });
  });

  it('makes no second delivery when the event is processed again, and queues again only those still pending', async () => {
    const agentId = randomUUID();
    await webhook(agentId, [EventNames.RunStarted]);
    await webhook(agentId, [EventNames.RunStarted]);
    const job = lifecycleJob(agentId);
    await sut.process(job);
    const [done, stillPending] = await deliveriesOf(job.id!);
    await dataSource.query(`UPDATE deliveries SET status = 'succeeded' WHERE id = $1`, [done.id]);
    // As if both jobs had run and gone, and the event then came again (delivery is at least once).
    await queue.remove(done.id);
    await queue.remove(stillPending.id);

    await sut.process(job);

    expect(await deliveriesOf(job.id!)).toHaveLength(2);
    expect(await queue.getJob(done.id)).toBeUndefined();
    expect(await queue.getJob(stillPending.id)).toBeDefined();
  });

  it('runs.purged deletes the deliveries of those runs with their attempts, in batches, and nothing of other runs', async () => {
    const agentId = randomUUID();
    await webhook(agentId, [EventNames.RunStarted, EventNames.RunCompleted]);
    await webhook(agentId, [EventNames.RunStarted]);
    const [purged, kept] = [[randomUUID(), randomUUID()], randomUUID()];
    for (const runId of [...purged, kept]) {
      await sut.process(lifecycleJob(agentId, EventNames.RunStarted, runId));
      await sut.process(lifecycleJob(agentId, EventNames.RunCompleted, runId));
    }
    await dataSource.query(
      `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code)
       SELECT id, 1, now(), 5, 500 FROM deliveries WHERE run_id = ANY($1::uuid[])`,
      [[...purged, kept]],
    );
    const count = async (runIds: string[]) =>
      (await dataSource.query(
        `SELECT (SELECT count(*)::int FROM deliveries WHERE run_id = ANY($1::uuid[])) AS deliveries,
                (SELECT count(*)::int FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.run_id = ANY($1::uuid[])) AS attempts`,
        [runIds],
      ))[0];
    expect(await count(purged)).toEqual({ deliveries: 6, attempts: 6 });

    expect(await new PostgresFanOutStore(dataSource).deleteOfRuns([purged[0]], 2)).toBe(3);
    const job = { id: `event-${randomUUID()}`, name: EventNames.RunsPurged, data: { run_ids: purged } } as Job<RunsPurgedEvent>;
    await sut.process(job);
    await sut.process(job); // delivered again: nothing left to delete, no error

    expect(await count(purged)).toEqual({ deliveries: 0, attempts: 0 });
    expect(await count([kept])).toEqual({ deliveries: 3, attempts: 3 });
  });
});
