import { SecretBox } from '@aas/platform';
import { getQueueToken } from '@nestjs/bullmq';
import { INestApplication } from '@nestjs/common';
import { JobNames, QueueNames } from '@aas/contracts';
import { Queue } from 'bullmq';
import { Pool } from 'pg';
import { eventually } from '../../../test/support/eventually';
import { appEnv, isolatedInfra, observerPool } from '../../../test/support/isolated-infra';
import { Receiver } from '../../../test/support/webhook-receiver';
import { migrateWebhooksSchema, startWebhooksService } from './webhook-delivery.app';
import { deliveryJob } from './delivery/delivery-job';
import { DeliverySweep } from './maintenance/delivery-sweep';
import { SWEEP_EVERY_MS } from './maintenance/delivery-sweep.processor';

const SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
const infra = isolatedInfra();
const env = {
  ...appEnv(infra),
  WEBHOOK_SECRET_KEY: SECRET_KEY,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
};

/** webhook-delivery alone (a sweep needs no other app), against its real schema and a Redis prefix of its own. */
describe('Sweep for lost deliveries', () => {
  const replicas: INestApplication[] = [];
  const receiver = new Receiver();
  let observer: Pool;
  let queue: Queue;
  let webhookId: string;

  beforeAll(async () => {
    await migrateWebhooksSchema(env);
    observer = observerPool(infra.databaseUrl, 'webhooks', 2);
    queue = new Queue(QueueNames.WebhookDeliveries, { connection: { url: infra.redisUrl }, prefix: infra.redisPrefix });
    const url = `${await receiver.start()}/hook`;
    const sealed = new SecretBox(SECRET_KEY).seal('whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=');
    const { rows } = await observer.query(
      `INSERT INTO webhooks (agent_id, user_id, url, events, secret_sealed) VALUES (gen_random_uuid(), gen_random_uuid(), $1, '{run.started}', $2) RETURNING id`,
      [url, sealed],
    );
    webhookId = rows[0].id;
  });
  afterAll(async () => {
    await Promise.allSettled(replicas.map((app) => app.close()));
    await queue?.close();
    await observer?.end();
    await receiver.close();
    await infra.dispose();
  });

  /** A pending delivery created `createdMinutesAgo`, due `dueMinutesAgo` (null: never attempted), and no job. */
  async function pendingDelivery(createdMinutesAgo: number, dueMinutesAgo: number | null = null): Promise<string> {
    const { rows } = await observer.query(
      `INSERT INTO deliveries (webhook_id, source_event_id, event, body, attempt_count, created_at, next_attempt_at)
       VALUES ($1, gen_random_uuid()::text, 'run.started', '{"event":"run.started"}', $3,
               now() - make_interval(mins => $2), now() - make_interval(mins => $4)) RETURNING id`,
      [webhookId, createdMinutesAgo, dueMinutesAgo === null ? 0 : 1, dueMinutesAgo],
    );
    return rows[0].id;
  }

  const statusOf = async (id: string): Promise<string> => (await observer.query(`SELECT status FROM deliveries WHERE id = $1`, [id])).rows[0].status;
  const sent = (id: string) => receiver.deliveryIds().filter((sentId) => sentId === id).length;
  const sweep = () => replicas[0].get(DeliverySweep, { strict: false });

  it('once webhook-delivery starts, sends an overdue pending delivery that has no job, and only that one', async () => {
    const lost = await pendingDelivery(10);
    const lostRetry = await pendingDelivery(60, 10);
    const notYetOverdue = await pendingDelivery(2);
    // Overdue too, but its retry job is live (delayed an hour): the sweep must not add a second one.
    const waiting = await pendingDelivery(60, 10);
    const job = deliveryJob(waiting);
    await queue.add(job.name, job.data, { ...job.opts, delay: 3_600_000 });

    replicas.push(await startWebhooksService(env));

    await eventually('the lost deliveries to be sent', async () => [await statusOf(lost), await statusOf(lostRetry)], (s) => s.every((x) => x === 'succeeded'));
    expect([sent(lost), sent(lostRetry)]).toEqual([1, 1]);
    // The same sweep looked at the delivery with a live job and left it.
    expect(await sweep().requeueLost()).toBe(0);
    expect(await queue.getJobState(waiting)).toBe('delayed');
    expect(await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized')).toEqual({ waiting: 0, active: 0, delayed: 1, prioritized: 0 });
    expect([sent(waiting), sent(notYetOverdue)]).toEqual([0, 0]);
    expect(await statusOf(notYetOverdue)).toBe('pending');
  });

  it('replaces a job that failed for good under the delivery id, which would block adding it again', async () => {
    const delivery = await pendingDelivery(30);
    // A job under the delivery's id that fails for good (its payload is refused, as a job whose attempts ran out would be).
    await queue.add('deliver', { delivery_id: 'not-a-uuid' }, { jobId: delivery, attempts: 1, removeOnFail: { age: 3600 } });
    await eventually('the job to fail', () => queue.getJobState(delivery), (state) => state === 'failed');

    expect(await sweep().requeueLost()).toBe(1);

    await eventually('the delivery to be sent', () => statusOf(delivery), (s) => s === 'succeeded');
    expect(sent(delivery)).toBe(1);
  });

  it('reads in bounded batches until a batch comes back short, and stops between batches when told to', async () => {
    // A disabled webhook's deliveries are cancelled by the worker, not sent: only the counts matter here.
    await observer.query(`UPDATE webhooks SET status = 'disabled' WHERE id = $1`, [webhookId]);
    const lost = await Promise.all(Array.from({ length: 25 }, () => pendingDelivery(20)));

    expect(await sweep().requeueLost(() => true, 10)).toBe(10);
    expect(await sweep().requeueLost(() => false, 10)).toBe(15);
    await eventually('every delivery to be cancelled', async () => Promise.all(lost.map(statusOf)), (s) => s.every((x) => x === 'cancelled'));
    expect(receiver.deliveryIds().filter((id) => lost.includes(id))).toEqual([]);
  });

  it('is scheduled once, every 5 minutes, however many replicas start', async () => {
    replicas.push(await startWebhooksService(env));
    const maintenance = replicas[0].get<Queue>(getQueueToken(QueueNames.WebhooksMaintenance), { strict: false });
    expect(await maintenance.getJobSchedulers()).toEqual([expect.objectContaining({ key: JobNames.SweepLostDeliveries, every: SWEEP_EVERY_MS })]);
    const next = await maintenance.getDelayed();
    expect(next).toHaveLength(1);
    expect(next[0].timestamp + next[0].delay).toBeGreaterThan(Date.now() + SWEEP_EVERY_MS - 60_000);
  });
});
