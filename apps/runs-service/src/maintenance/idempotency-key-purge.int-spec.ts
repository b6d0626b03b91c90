import { getQueueToken } from '@nestjs/bullmq';
import { INestApplication } from '@nestjs/common';
import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { JobNames, QueueNames } from '@aas/contracts';
import { eventually } from '../../../../test/support/eventually';
import { appEnv, isolatedInfra, observerPool } from '../../../../test/support/isolated-infra';
import { migrateRunsSchema, startRunsService } from '../runs-service.app';
import { MaintenanceStore } from './maintenance.store';
import { PURGE_EVERY_MS } from './runs-maintenance.processor';

const { PurgeDeletedAgentGenerations, PurgeExpiredRuns, PurgeIdempotencyKeys, PurgeIdleRunChains, PurgeRunListTotals } = JobNames;

const infra = isolatedInfra();
const env = appEnv(infra);

/** runs-service alone (no other app is needed to purge), against its real schema and a Redis prefix of its own. */
describe('Idempotency key purge', () => {
  const replicas: INestApplication[] = [];
  let observer: Pool;

  beforeAll(async () => {
    await migrateRunsSchema(env);
    observer = observerPool(infra.databaseUrl, 'runs', 2);
  });
  afterAll(async () => {
    await Promise.allSettled(replicas.map((app) => app.close()));
    await observer?.end();
    await infra.dispose();
  });

  /** `count` keys (API-style or a schedule's) created `hours` ago; returns their keys. */
  async function keysAged(hours: number, count: number, kind: 'api' | 'schedule' = 'api'): Promise<string[]> {
    const keys = Array.from({ length: count }, (_, i) => (kind === 'schedule' ? `schedule:${randomUUID()}:${Date.now() + i}` : randomUUID()));
    await observer.query(
      `INSERT INTO run_idempotency_keys (user_id, key, agent_id, run_id, created_at)
       SELECT gen_random_uuid(), k, gen_random_uuid(), gen_random_uuid(), now() - make_interval(hours => $2) FROM unnest($1::text[]) AS k`,
      [keys, hours],
    );
    return keys;
  }

  const remaining = async (keys: string[]): Promise<number> =>
    Number((await observer.query(`SELECT count(*) AS n FROM run_idempotency_keys WHERE key = ANY($1)`, [keys])).rows[0].n);

  it('purges keys older than 24 hours once runs-service starts, and keeps younger ones', async () => {
    const expired = [...(await keysAged(25, 30)), ...(await keysAged(24 * 7, 5, 'schedule'))];
    const fresh = [...(await keysAged(23, 5)), ...(await keysAged(0, 5, 'schedule'))];
    replicas.push(await startRunsService(env));

    await eventually('the expired keys to be purged', () => remaining(expired), (n) => n === 0);
    expect(await remaining(fresh)).toBe(fresh.length);
  });

  it('is scheduled once, every 10 minutes, however many replicas start (with the other purges)', async () => {
    replicas.push(await startRunsService(env));
    const queue = replicas[0].get<Queue>(getQueueToken(QueueNames.RunsMaintenance), { strict: false });
    const schedulers = (await queue.getJobSchedulers()).sort((a, b) => (a.key < b.key ? -1 : 1));
    // The retention purge (retention/) every RUN_PURGE_INTERVAL_MS (10 minutes by default), the others every PURGE_EVERY_MS.
    expect(schedulers).toEqual(
      [PurgeDeletedAgentGenerations, PurgeExpiredRuns, PurgeIdempotencyKeys, PurgeIdleRunChains, PurgeRunListTotals].map((key) =>
        expect.objectContaining({ key, every: key === PurgeExpiredRuns ? 600_000 : PURGE_EVERY_MS }),
      ),
    );
    // The first purges ran at once; the next ones wait their interval, still one job each after the second replica's start.
    const next = await queue.getDelayed();
    expect(next.map((job) => job.name).sort()).toEqual([PurgeDeletedAgentGenerations, PurgeExpiredRuns, PurgeIdempotencyKeys, PurgeIdleRunChains, PurgeRunListTotals]);
    for (const job of next) expect(job.timestamp + job.delay).toBeGreaterThan(Date.now() + 600_000 - 60_000);
  });

  it('deletes in bounded batches until a batch comes back short, and stops between batches when told to', async () => {
    const purge = replicas[0].get(MaintenanceStore, { strict: false });
    const expired = await keysAged(30, 25);
    const fresh = await keysAged(1, 3);

    expect(await purge.purgeExpiredKeys(() => true, 10)).toBe(10);
    expect(await remaining(expired)).toBe(15);
    expect(await purge.purgeExpiredKeys(() => false, 10)).toBe(15);
    expect(await remaining(expired)).toBe(0);
    expect(await remaining(fresh)).toBe(fresh.length);
  });

  it('forgets the counts of chains of triggered runs idle for RUN_CHAIN_IDLE_DAYS, and keeps the others', async () => {
    const [idle, recent] = [randomUUID(), randomUUID()];
    await observer.query(
      `INSERT INTO run_chains (root_run_id, started_runs, updated_at) VALUES ($1, 100, now() - interval '8 days'), ($2, 100, now() - interval '6 days')`,
      [idle, recent],
    );
    expect(await replicas[0].get(MaintenanceStore, { strict: false }).purgeIdleChains()).toBeGreaterThanOrEqual(1);
    const { rows } = await observer.query(`SELECT root_run_id FROM run_chains WHERE root_run_id = ANY($1::uuid[])`, [[idle, recent]]);
    expect(rows.map((row) => row.root_run_id)).toEqual([recent]);
  });
});
