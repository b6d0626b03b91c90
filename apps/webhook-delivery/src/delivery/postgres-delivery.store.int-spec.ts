import { dataSourceOptions, migrateSchema } from '@aas/platform';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { isolatedInfra, observerPool } from '../../../../test/support/isolated-infra';
import { WEBHOOKS_SCHEMA } from '../database/webhooks-schema';
import { AttemptRecord } from './delivery.store';
import { PostgresDeliveryStore } from './postgres-delivery.store';

const infra = isolatedInfra();
const options = { ...WEBHOOKS_SCHEMA, url: infra.databaseUrl, poolSize: 6 };

/** Against the real schema: a delivery store on a pool of its own, and a separate connection to look with. */
describe(PostgresDeliveryStore.name, () => {
  let dataSource: DataSource;
  let observer: Pool;
  let sut: PostgresDeliveryStore;
  let webhookId: string;
  let statements: string[];

  beforeAll(async () => {
    await migrateSchema(options);
    observer = observerPool(infra.databaseUrl, 'webhooks', 4);
  });
  beforeEach(async () => {
    // A short statement timeout lets a test make PostgreSQL refuse a batch by holding a lock.
    const base = dataSourceOptions(options);
    dataSource = new DataSource({ ...base, extra: { ...(base.extra as object), statement_timeout: 1000 } } as typeof base);
    await dataSource.initialize();
    statements = [];
    const query = dataSource.query.bind(dataSource);
    jest.spyOn(dataSource, 'query').mockImplementation((sql, parameters, runner) => {
      statements.push(sql);
      return query(sql, parameters, runner);
    });
    sut = new PostgresDeliveryStore(dataSource);
    const { rows } = await observer.query(
      `INSERT INTO webhooks (agent_id, user_id, url, events, secret_sealed)
       VALUES (gen_random_uuid(), gen_random_uuid(), 'https://example.com/hook', '{run.started}', 'sealed') RETURNING id`,
    );
    webhookId = rows[0].id;
  });
  afterEach(() => dataSource.destroy());
  afterAll(async () => {
    await observer.end();
    await infra.dispose();
  });

  async function deliveries(count: number): Promise<string[]> {
    const { rows } = await observer.query(
      `INSERT INTO deliveries (webhook_id, source_event_id, event, body)
       SELECT $1, 'event-' || gen_random_uuid(), 'run.started', '{"n":' || n || '}' FROM generate_series(1, $2) AS n RETURNING id`,
      [webhookId, count],
    );
    return rows.map((r: { id: string }) => r.id);
  }

  function succeeded(deliveryId: string, responseBody = 'ok'): AttemptRecord {
    return {
      deliveryId,
      webhookId,
      attempt: 1,
      startedAt: new Date(),
      result: { statusCode: 200, error: null, responseBody, durationMs: 3, requestHeaders: { 'webhook-id': deliveryId }, responseHeaders: { server: 'test' } },
      outcome: { status: 'succeeded' },
    };
  }

  async function recordedAttempts(ids: string[]): Promise<{ delivery_id: string; status: string; attempt_count: number; status_code: number }[]> {
    const { rows } = await observer.query(
      `SELECT a.delivery_id, d.status, d.attempt_count, a.status_code
         FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE a.delivery_id = ANY($1)`,
      [ids],
    );
    return rows;
  }

  const writes = () => statements.filter((sql) => sql.includes('INSERT INTO delivery_attempts'));

  it('reads concurrent deliveries with one query and gives each caller its own row', async () => {
    const ids = await deliveries(3);
    await observer.query(`UPDATE deliveries SET status = 'succeeded' WHERE id = $1`, [ids[2]]);

    const found = await Promise.all([...ids, '00000000-0000-4000-8000-000000000000'].map((id) => sut.pending(id)));

    expect(found.map((d) => d?.id)).toEqual([ids[0], ids[1], undefined, undefined]);
    expect(found[0]).toMatchObject({ body: '{"n":1}', attemptCount: 0, webhookId, webhookStatus: 'active', secretSealed: 'sealed' });
    const { rows } = await observer.query(`SELECT user_id, created_at FROM webhooks WHERE id = $1`, [webhookId]);
    expect(found[0]?.userId).toBe(rows[0].user_id);
    expect(found[0]?.pendingSince).toBeInstanceOf(Date);
    expect(statements.filter((sql) => sql.includes('FROM deliveries d'))).toHaveLength(1);
  });

  it('writes concurrent attempts in one statement, and each caller resumes only once its attempt is committed', async () => {
    const ids = await deliveries(50);

    await Promise.all(
      ids.map(async (id) => {
        await sut.recordAttempt(succeeded(id));
        // Seen from another connection, so committed.
        const { rows } = await observer.query(`SELECT count(*)::int AS n FROM delivery_attempts WHERE delivery_id = $1`, [id]);
        expect(rows[0].n).toBe(1);
      }),
    );

    expect(writes()).toHaveLength(1);
    const recorded = await recordedAttempts(ids);
    expect(recorded).toHaveLength(50);
    expect(recorded.every((r) => r.status === 'succeeded' && r.attempt_count === 1 && r.status_code === 200)).toBe(true);
  });

  it('records a retry as pending with its next attempt time', async () => {
    const [id] = await deliveries(1);
    const nextAttemptAt = new Date(Date.now() + 5000);

    await sut.recordAttempt({
      deliveryId: id,
      webhookId,
      attempt: 1,
      startedAt: new Date(),
      result: { statusCode: null, error: 'ECONNREFUSED: connect', responseBody: null, durationMs: 1, requestHeaders: {}, responseHeaders: null },
      outcome: { status: 'pending', nextAttemptAt },
    });

    const { rows } = await observer.query(`SELECT status, attempt_count, next_attempt_at, finished_at FROM deliveries WHERE id = $1`, [id]);
    expect(rows[0]).toMatchObject({ status: 'pending', attempt_count: 1, next_attempt_at: nextAttemptAt, finished_at: null });
    expect((await sut.pending(id))?.attemptCount).toBe(1);
  });

  it('fails every caller of a batch PostgreSQL could not write, and records none of them', async () => {
    const ids = await deliveries(5);
    const locker = new Client({ connectionString: infra.databaseUrl, options: '-c search_path=webhooks' });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE delivery_attempts IN ACCESS EXCLUSIVE MODE');

      const outcomes = await Promise.allSettled(ids.map((id) => sut.recordAttempt(succeeded(id))));

      expect(outcomes.map((o) => o.status)).toEqual(Array(5).fill('rejected'));
      await locker.query('ROLLBACK');
      expect(await recordedAttempts(ids)).toEqual([]);
    } finally {
      await locker.end();
    }
  });

  it('fails only the caller whose attempt PostgreSQL refuses; the others of its batch are recorded', async () => {
    const ids = await deliveries(4);

    const outcomes = await Promise.allSettled(ids.map((id, i) => sut.recordAttempt(succeeded(id, i === 1 ? 'nul \u0000 byte' : 'ok'))));

    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((await recordedAttempts(ids)).map((r) => r.delivery_id).sort()).toEqual([ids[0], ids[2], ids[3]].sort());
  });

  it('skips the attempt of a delivery deleted meanwhile (its webhook went) without failing the rest', async () => {
    const ids = await deliveries(3);
    await observer.query(`DELETE FROM deliveries WHERE id = $1`, [ids[0]]);

    await Promise.all(ids.map((id) => sut.recordAttempt(succeeded(id))));

    expect((await recordedAttempts(ids)).map((r) => r.delivery_id).sort()).toEqual([ids[1], ids[2]].sort());
  });

  it("keeps each attempt's headers, and its webhooks' health, in the batch's transaction: one row update per webhook, a success resetting the count", async () => {
    const ids = await deliveries(4);
    const { rows: others } = await observer.query(
      `INSERT INTO webhooks (agent_id, user_id, url, events, secret_sealed, consecutive_failures)
       VALUES (gen_random_uuid(), gen_random_uuid(), 'https://example.com/other', '{run.started}', 'sealed', 7) RETURNING id`,
    );
    const other = others[0].id as string;
    const [otherDelivery] = (
      await observer.query(`INSERT INTO deliveries (webhook_id, source_event_id, event, body) VALUES ($1, 'e', 'run.started', '{}') RETURNING id`, [other])
    ).rows.map((r: { id: string }) => r.id);
    const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 12, 0, s));
    const failed = (deliveryId: string, hook: string, second: number, statusCode: number | null): AttemptRecord => ({
      deliveryId,
      webhookId: hook,
      attempt: 1,
      startedAt: at(second),
      result: { statusCode, error: statusCode === null ? 'ECONNREFUSED: connect' : null, responseBody: null, durationMs: 1, requestHeaders: {}, responseHeaders: null },
      outcome: { status: 'pending', nextAttemptAt: new Date(Date.now() + 60_000) },
    });

    await Promise.all([
      sut.recordAttempt(failed(ids[0], webhookId, 1, 500)),
      sut.recordAttempt({ ...succeeded(ids[1]), startedAt: at(2) }),
      sut.recordAttempt(failed(ids[2], webhookId, 3, 503)),
      sut.recordAttempt(failed(ids[3], webhookId, 4, null)),
      sut.recordAttempt(failed(otherDelivery, other, 5, 404)),
    ]);

    expect(writes()).toHaveLength(1);
    const { rows } = await observer.query(
      `SELECT id, consecutive_failures, last_success_at, last_error, last_error_at FROM webhooks WHERE id = ANY($1)`,
      [[webhookId, other]],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(webhookId)).toEqual({ id: webhookId, consecutive_failures: 2, last_success_at: at(2), last_error: 'ECONNREFUSED: connect', last_error_at: at(4) });
    expect(byId.get(other)).toEqual({ id: other, consecutive_failures: 8, last_success_at: null, last_error: 'HTTP 404 Not Found', last_error_at: at(5) });
    const { rows: kept } = await observer.query(`SELECT request_headers, response_headers FROM delivery_attempts WHERE delivery_id = $1`, [ids[1]]);
    expect(kept).toEqual([{ request_headers: { 'webhook-id': ids[1] }, response_headers: { server: 'test' } }]);
  });

  it('counts a delivery made before pending_since existed as pending since its creation', async () => {
    const [id] = await deliveries(1);
    await observer.query(`UPDATE deliveries SET pending_since = NULL, created_at = '2026-01-02T03:04:05Z' WHERE id = $1`, [id]);

    expect((await sut.pending(id))?.pendingSince).toEqual(new Date('2026-01-02T03:04:05Z'));
  });

  it('postpones concurrent deliveries in one statement, only those still pending, leaving their attempts alone', async () => {
    const ids = await deliveries(3);
    await observer.query(`UPDATE deliveries SET status = 'succeeded', attempt_count = 1 WHERE id = $1`, [ids[2]]);
    const later = new Date(Date.now() + 60_000);

    await Promise.all(ids.map((id) => sut.postpone(id, later)));

    const { rows } = await observer.query(`SELECT id, status, attempt_count, next_attempt_at FROM deliveries WHERE id = ANY($1) ORDER BY id`, [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.get(ids[0])).toMatchObject({ status: 'pending', attempt_count: 0, next_attempt_at: later });
    expect(byId.get(ids[1])).toMatchObject({ status: 'pending', attempt_count: 0, next_attempt_at: later });
    expect(byId.get(ids[2])).toMatchObject({ status: 'succeeded', next_attempt_at: null });
    expect(statements.filter((sql) => sql.includes('SET next_attempt_at = i.next_attempt_at'))).toHaveLength(1);
  });

  it('gives up a pending delivery without recording an attempt, and leaves a finished one as it was', async () => {
    const [pending, done] = await deliveries(2);
    await observer.query(`UPDATE deliveries SET status = 'succeeded' WHERE id = $1`, [done]);

    await sut.giveUp(pending);
    await sut.giveUp(done);

    const { rows } = await observer.query(`SELECT id, status, next_attempt_at, finished_at FROM deliveries WHERE id = ANY($1)`, [[pending, done]]);
    expect(rows.find((r) => r.id === pending)).toMatchObject({ status: 'failed', next_attempt_at: null, finished_at: expect.any(Date) });
    expect(rows.find((r) => r.id === done)).toMatchObject({ status: 'succeeded' });
    expect(await recordedAttempts([pending])).toEqual([]);
  });
});
