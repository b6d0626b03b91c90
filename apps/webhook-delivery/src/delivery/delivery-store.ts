import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { SendResult } from './webhook-sender';

/** A pending delivery with what sending it needs of its webhook. */
export interface DeliveryToSend {
  id: string;
  event: string;
  body: string;
  attemptCount: number;
  webhookId: string | null;
  webhookStatus: string | null;
  url: string | null;
  secretSealed: string | null;
}

export type Outcome =
  | { status: 'succeeded' | 'failed' | 'cancelled' }
  | { status: 'pending'; nextAttemptAt: Date };

/** The delivery hot path in as few round trips as possible: one read, one write per attempt. */
@Injectable()
export class DeliveryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async pending(deliveryId: string): Promise<DeliveryToSend | undefined> {
    const [row] = await this.dataSource.query(
      `SELECT d.id, d.event, d.body, d.attempt_count AS "attemptCount", w.id AS "webhookId",
              w.status AS "webhookStatus", w.url, w.secret_sealed AS "secretSealed"
         FROM deliveries d LEFT JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = $1 AND d.status = 'pending'`,
      [deliveryId],
    );
    return row;
  }

  /** Records the attempt and the delivery's new state together. */
  async recordAttempt(deliveryId: string, attempt: number, startedAt: Date, result: SendResult, outcome: Outcome): Promise<void> {
    await this.dataSource.query(
      `WITH attempt AS (
         INSERT INTO delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
       )
       UPDATE deliveries SET attempt_count = $2, status = $8, next_attempt_at = $9,
              finished_at = CASE WHEN $8 = 'pending' THEN NULL ELSE now() END
        WHERE id = $1`,
      [
        deliveryId,
        attempt,
        startedAt,
        result.durationMs,
        result.statusCode,
        result.error,
        result.responseBody,
        outcome.status,
        outcome.status === 'pending' ? outcome.nextAttemptAt : null,
      ],
    );
  }

  async finish(deliveryId: string, status: 'cancelled'): Promise<void> {
    await this.dataSource.query(`UPDATE deliveries SET status = $2, next_attempt_at = NULL, finished_at = now() WHERE id = $1`, [
      deliveryId,
      status,
    ]);
  }

  async disableWebhook(webhookId: string): Promise<void> {
    await this.dataSource.query(`UPDATE webhooks SET status = 'disabled', updated_at = now() WHERE id = $1`, [webhookId]);
  }
}
