import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { entityFromRow } from '@aas/platform';
import { DataSource, In } from 'typeorm';
import { DeliveryAttemptEntity } from '../database/delivery-attempt.entity';
import { DeliveryEntity, DeliveryStatus } from '../database/delivery.entity';
import { DeliveryHistoryStore, DeliveryPage, ScheduledDelivery } from './delivery-history.store';

/** Delivery history on PostgreSQL: `deliveries` by webhook (deliveries_webhook_idx), attempts by delivery. */
@Injectable()
export class PostgresDeliveryHistoryStore extends DeliveryHistoryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async page(webhookId: string, offset: number, limit: number, status?: DeliveryStatus): Promise<DeliveryPage> {
    const [deliveries, total] = await this.dataSource.manager.findAndCount(DeliveryEntity, {
      where: status ? { webhookId, status } : { webhookId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: limit,
    });
    return { deliveries, total };
  }

  attemptsOf(deliveryIds: string[]): Promise<DeliveryAttemptEntity[]> {
    if (deliveryIds.length === 0) return Promise.resolve([]);
    return this.dataSource.manager.find(DeliveryAttemptEntity, { where: { deliveryId: In(deliveryIds) }, order: { attempt: 'ASC' } });
  }

  find(webhookId: string, deliveryId: string): Promise<DeliveryEntity | null> {
    return this.dataSource.manager.findOneBy(DeliveryEntity, { id: deliveryId, webhookId });
  }

  async markPending(deliveryId: string, at: Date): Promise<void> {
    await this.dataSource.manager.update(DeliveryEntity, { id: deliveryId }, { status: 'pending', finishedAt: null, nextAttemptAt: at, pendingSince: at });
  }

  async insertTest(webhookId: string, event: string, body: string): Promise<DeliveryEntity> {
    const [row]: Record<string, unknown>[] = await this.dataSource.query(
      `INSERT INTO deliveries (webhook_id, source_event_id, event, body, test) VALUES ($1, 'test:' || gen_random_uuid(), $2, $3, true) RETURNING *`,
      [webhookId, event, body],
    );
    return entityFromRow(this.dataSource, DeliveryEntity, row);
  }

  /** By deliveries_failed_idx: only failed rows are read, however many others the webhook has since then. */
  async failedSince(webhookId: string, since: Date, limit: number): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `SELECT id FROM deliveries WHERE webhook_id = $1 AND status = 'failed' AND created_at >= $2 AND NOT test
        ORDER BY created_at, id LIMIT $3`,
      [webhookId, since, limit],
    );
    return rows.map((row) => row.id);
  }

  /** The status test is made again once a concurrent request's update commits, so the loser of the race makes nothing pending. */
  async markFailedPending(deliveries: ScheduledDelivery[]): Promise<string[]> {
    if (deliveries.length === 0) return [];
    const [rows]: [{ id: string }[], number] = await this.dataSource.query(
      `UPDATE deliveries d SET status = 'pending', finished_at = NULL, next_attempt_at = i.at, pending_since = i.at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS i(id, at)
        WHERE d.id = i.id AND d.status = 'failed' RETURNING d.id`,
      [deliveries.map((d) => d.id), deliveries.map((d) => d.at)],
    );
    return rows.map((row) => row.id);
  }
}
