import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, In } from 'typeorm';
import { DeliveryAttemptEntity } from '../database/delivery-attempt.entity';
import { DeliveryEntity } from '../database/delivery.entity';
import { DeliveryHistoryStore, DeliveryPage } from './delivery-history.store';

/** Delivery history on PostgreSQL: `deliveries` by webhook (deliveries_webhook_idx), attempts by delivery. */
@Injectable()
export class PostgresDeliveryHistoryStore extends DeliveryHistoryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  async page(webhookId: string, offset: number, limit: number): Promise<DeliveryPage> {
    const [deliveries, total] = await this.dataSource.manager.findAndCount(DeliveryEntity, {
      where: { webhookId },
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
}
