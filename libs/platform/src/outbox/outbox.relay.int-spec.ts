import { getQueueToken } from '@nestjs/bullmq';
import { ModuleRef } from '@nestjs/core';
import { Job, Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { eventually } from '../../../../test/support/eventually';
import { PG_ADMIN_URL, isolatedInfra } from '../../../../test/support/isolated-infra';
import { OutboxEventEntity } from './outbox-event.entity';
import { createOutboxTable } from './outbox-table';
import { OutboxRelay } from './outbox.relay';

const infra = isolatedInfra();

/** The relay against PostgreSQL and Redis: each committed row becomes one job per route, once, in order. */
describe(OutboxRelay.name, () => {
  let dataSource: DataSource;
  let relay: OutboxRelay;
  const queues = new Map<string, Queue>();

  beforeAll(async () => {
    const admin = new Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${new URL(infra.databaseUrl).pathname.slice(1)}"`);
    await admin.end();
    dataSource = await new DataSource({ type: 'postgres', url: infra.databaseUrl, entities: [OutboxEventEntity] }).initialize();
    const runner = dataSource.createQueryRunner();
    await createOutboxTable(runner);
    await runner.query('ALTER TABLE outbox ADD COLUMN request_id text');
    await runner.release();
    for (const name of ['first', 'second']) queues.set(getQueueToken(name), new Queue(name, { connection: { url: infra.redisUrl }, prefix: infra.redisPrefix }));
    const moduleRef = { get: (token: string) => queues.get(token) } as unknown as ModuleRef;
    const routes = { 'run.started': ['first', 'second'], 'run.queued': ['first'] };
    const priorities = { 'run.queued': (payload: Record<string, unknown>) => Number(payload.priority) };
    relay = new OutboxRelay(dataSource, routes, moduleRef, undefined, priorities);
  });
  afterAll(async () => {
    for (const queue of queues.values()) await queue.close();
    await dataSource?.destroy();
    await infra.dispose();
  });

  const record = async (rows: Array<{ id: string; event: string; payload: object }>) => {
    for (const row of rows) await dataSource.query('INSERT INTO outbox (id, event, payload) VALUES ($1, $2, $3::jsonb)', [row.id, row.event, JSON.stringify(row.payload)]);
  };
  const published = async () => eventually('the outbox drained', () => dataSource.query('SELECT count(*)::int AS n FROM outbox'), ([{ n }]) => n === 0);
  const jobsOf = async (name: string) => {
    const jobs: Job[] = await queues.get(getQueueToken(name))!.getJobs(['waiting', 'prioritized'], 0, -1, true);
    return jobs.map((job) => [job.id, job.name, job.data.n, job.opts.priority ?? 0]);
  };

  it('publishes each row to every queue of its route, with its id as the job id and its priority, in order', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    await record([
      { id: ids[0], event: 'run.started', payload: { n: 0 } },
      { id: ids[1], event: 'run.queued', payload: { n: 1, priority: 7 } },
      { id: ids[2], event: 'run.started', payload: { n: 2 } },
    ]);
    relay.kick();
    await published();
    expect((await jobsOf('first')).sort()).toEqual(
      [
        [ids[0], 'run.started', 0, 0],
        [ids[1], 'run.queued', 1, 7],
        [ids[2], 'run.started', 2, 0],
      ].sort(),
    );
    expect(await jobsOf('second')).toEqual([
      [ids[0], 'run.started', 0, 0],
      [ids[2], 'run.started', 2, 0],
    ]);
  });

  it('does not publish a row twice: a row published again (a crash before its delete) keeps its job', async () => {
    const before = (await jobsOf('second')).length;
    const [again] = await jobsOf('second');
    await record([{ id: String(again[0]), event: 'run.started', payload: { n: 99 } }]);
    relay.kick();
    await published();
    const jobs = await jobsOf('second');
    expect(jobs).toHaveLength(before);
    expect(jobs.find((job) => job[0] === again[0])![2]).toBe(0);
  });
});
