import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { Batcher } from '@aas/platform';
import { AttemptRecord, DeliveryStore, DeliveryToSend } from './delivery.store';
import { attemptError, healthChanges } from './endpoint-health';

interface Postponement {
  deliveryId: string;
  nextAttemptAt: Date;
}

/**
 * One batch of each kind in flight: what arrives meanwhile goes in the next one, so batches grow with
 * the load (a row costs PostgreSQL about half as much in a batch of 100 as in one of 20) and the
 * service uses three pooled connections for it at most (reads, attempts, and the rare postponements),
 * whatever WEBHOOK_WORKER_CONCURRENCY is.
 */
const BATCH = { maxBatchSize: 500, maxConcurrentBatches: 1, retryItemsAlone: rejectedByServer, lingerMs: 3 };

/**
 * The delivery hot path in as few round trips as possible: the reads of concurrent deliveries go to
 * PostgreSQL as one query, and their attempts are written by one statement in one transaction. Each
 * caller still gets only its own row, and `recordAttempt` resolves only once its attempt is committed.
 */
@Injectable()
export class PostgresDeliveryStore extends DeliveryStore {
  private readonly reads = new Batcher<string, DeliveryToSend | undefined>((ids) => this.pendingMany(ids), BATCH);
  private readonly writes = new Batcher<AttemptRecord, void>(async (records) => {
    await this.recordAttempts(records);
    return records.map(() => undefined);
  }, BATCH);
  private readonly postponements = new Batcher<Postponement, void>(async (items) => {
    await this.postponeMany(items);
    return items.map(() => undefined);
  }, BATCH);

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  pending(deliveryId: string): Promise<DeliveryToSend | undefined> {
    return this.reads.submit(deliveryId);
  }

  recordAttempt(record: AttemptRecord): Promise<void> {
    return this.writes.submit(record);
  }

  /** One read for many deliveries: the answer has one entry per id, in their order. */
  async pendingMany(deliveryIds: string[]): Promise<(DeliveryToSend | undefined)[]> {
    const rows: DeliveryToSend[] = await this.dataSource.query(
      `SELECT d.id, d.event, d.body, d.attempt_count AS "attemptCount", coalesce(d.pending_since, d.created_at) AS "pendingSince", d.test,
              w.id AS "webhookId", w.user_id AS "userId", w.status AS "webhookStatus", w.url, w.secret_sealed AS "secretSealed",
              d.chain_root_id AS "chainRootId", d.chain_depth AS "chainDepth"
         FROM deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = ANY($1::uuid[]) AND d.status = 'pending'`,
      [deliveryIds],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    return deliveryIds.map((id) => byId.get(id));
  }

  /**
   * Many attempts in one statement, so in one transaction, with their webhooks' health. An attempt is
   * recorded only with the update of its delivery: a delivery deleted meanwhile (its webhook or agent was
   * deleted) is skipped rather than failing the foreign key, and the update's row lock keeps it from
   * going before the commit. The webhook rows are locked in id order (healthChanges sorts them), so two
   * batches never wait for each other in a cycle, and only for the statement: a webhook that takes
   * thousands of deliveries a second across processes serialises their batches' commits, not more. A
   * webhook deleted at the same instant can deadlock with it (deleting locks the webhook, then its
   * deliveries): PostgreSQL refuses one of the two, and a refused batch is retried item by item.
   */
  async recordAttempts(records: AttemptRecord[]): Promise<void> {
    const column = <T>(pick: (r: AttemptRecord) => T) => records.map(pick);
    const json = (value: Record<string, string> | null) => (value === null ? null : JSON.stringify(value));
    const health = healthChanges(records);
    const healthColumn = <T>(pick: (c: (typeof health)[number]) => T) => health.map(pick);
    await this.dataSource.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::timestamptz[],
                              $10::text[], $11::text[])
           AS t(delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, status, next_attempt_at, request_headers, response_headers)
       ), updated AS (
         UPDATE deliveries d
            SET attempt_count = i.attempt, status = i.status, next_attempt_at = i.next_attempt_at,
                finished_at = CASE WHEN i.status = 'pending' THEN NULL ELSE now() END
           FROM input i
          WHERE d.id = i.delivery_id
         RETURNING d.id
       ), health_input AS (
         SELECT * FROM unnest($12::uuid[], $13::bool[], $14::int[], $15::timestamptz[], $16::text[], $17::timestamptz[])
           AS t(webhook_id, succeeded, failures, last_success_at, last_error, last_error_at)
       ), locked AS (
         SELECT w.id FROM webhooks w JOIN health_input h ON h.webhook_id = w.id ORDER BY w.id FOR NO KEY UPDATE OF w
       ), health AS (
         UPDATE webhooks w
            SET consecutive_failures = CASE WHEN h.succeeded THEN h.failures ELSE w.consecutive_failures + h.failures END,
                last_success_at = greatest(w.last_success_at, h.last_success_at),
                last_error = CASE WHEN h.last_error_at >= coalesce(w.last_error_at, '-infinity') THEN h.last_error ELSE w.last_error END,
                last_error_at = greatest(w.last_error_at, h.last_error_at)
           FROM health_input h JOIN locked l ON l.id = h.webhook_id
          WHERE w.id = h.webhook_id
       )
       INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_body, request_headers, response_headers)
       SELECT i.delivery_id, i.attempt, i.started_at, i.duration_ms, i.status_code, i.error, i.response_body, i.request_headers::jsonb, i.response_headers::jsonb
         FROM input i JOIN updated u ON u.id = i.delivery_id`,
      [
        column((r) => r.deliveryId),
        column((r) => r.attempt),
        column((r) => r.startedAt),
        column((r) => r.result.durationMs),
        column((r) => r.result.statusCode),
        column(attemptError),
        column((r) => r.result.responseBody),
        column((r) => r.outcome.status),
        column((r) => (r.outcome.status === 'pending' ? r.outcome.nextAttemptAt : null)),
        column((r) => json(r.result.requestHeaders)),
        column((r) => json(r.result.responseHeaders)),
        healthColumn((c) => c.webhookId),
        healthColumn((c) => c.succeeded),
        healthColumn((c) => c.failures),
        healthColumn((c) => c.lastSuccessAt),
        healthColumn((c) => c.lastError),
        healthColumn((c) => c.lastErrorAt),
      ],
    );
  }

  postpone(deliveryId: string, nextAttemptAt: Date): Promise<void> {
    return this.postponements.submit({ deliveryId, nextAttemptAt });
  }

  async postponeMany(items: Postponement[]): Promise<void> {
    await this.dataSource.query(
      `UPDATE deliveries d SET next_attempt_at = i.next_attempt_at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS i(id, next_attempt_at)
        WHERE d.id = i.id AND d.status = 'pending'`,
      [items.map((i) => i.deliveryId), items.map((i) => i.nextAttemptAt)],
    );
  }

  async giveUp(deliveryId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE deliveries SET status = 'failed', next_attempt_at = NULL, finished_at = now() WHERE id = $1 AND status = 'pending'`,
      [deliveryId],
    );
  }

  async cancel(deliveryId: string): Promise<void> {
    await this.dataSource.query(`UPDATE deliveries SET status = 'cancelled', next_attempt_at = NULL, finished_at = now() WHERE id = $1`, [deliveryId]);
  }

  async disableWebhook(webhookId: string): Promise<void> {
    await this.dataSource.query(`UPDATE webhooks SET status = 'disabled', disabled_reason = 'receiver_gone', updated_at = now() WHERE id = $1`, [webhookId]);
  }
}

/**
 * An error PostgreSQL answered with (it carries a severity): the statement was rejected and rolled
 * back, so running its items again cannot record anything twice. A lost connection is not one:
 * the commit may have happened.
 */
function rejectedByServer(error: unknown): boolean {
  const e = error as { severity?: unknown; driverError?: { severity?: unknown } };
  return typeof (e.driverError?.severity ?? e.severity) === 'string';
}
