import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DeliveryDto, DeliveryListResponse, ListDeliveriesMessage, RedeliverMessage } from '@aas/contracts';
import { ResourceNotFoundError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { DataSource, In } from 'typeorm';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';
import { DeliveryQueue } from './delivery-queue';

const DEFAULT_PAGE_SIZE = 50;

/** What users of webhook products keep asking for: the deliveries of a webhook with every attempt, and redelivery. */
@Injectable()
export class DeliveriesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly subscriptions: SubscriptionsService,
    private readonly queue: DeliveryQueue,
  ) {}

  /** Newest first, paged like the run list (`page` 1-based, `page_size` at most 200). */
  async list(message: ListDeliveriesMessage): Promise<DeliveryListResponse> {
    const webhook = await this.subscriptions.find(message.user_id, message.agent_id, message.webhook_id);
    const page = Math.max(message.page ?? 1, 1);
    const pageSize = message.page_size || DEFAULT_PAGE_SIZE;
    const [deliveries, total] = await this.dataSource.manager.findAndCount(DeliveryEntity, {
      where: { webhookId: webhook.id },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: (page - 1) * pageSize,
      take: pageSize,
    });
    const attempts = deliveries.length
      ? await this.dataSource.manager.find(DeliveryAttemptEntity, {
          where: { deliveryId: In(deliveries.map((d) => d.id)) },
          order: { attempt: 'ASC' },
        })
      : [];
    return { deliveries: deliveries.map((d) => toDeliveryDto(d, attempts.filter((a) => a.deliveryId === d.id))), total };
  }

  /**
   * Sends a delivery again now, with the same id and body (a new attempt), whatever its state. A pending
   * delivery waiting to retry has that retry moved up, not a second job that would send it too.
   */
  async redeliver(message: RedeliverMessage): Promise<DeliveryDto> {
    const webhook = await this.subscriptions.find(message.user_id, message.agent_id, message.webhook_id);
    const delivery = isUUID(message.delivery_id)
      ? await this.dataSource.manager.findOneBy(DeliveryEntity, { id: message.delivery_id, webhookId: webhook.id })
      : null;
    if (!delivery) throw new ResourceNotFoundError('Delivery', message.delivery_id);
    const now = new Date();
    await this.dataSource.manager.update(DeliveryEntity, { id: delivery.id }, { status: 'pending', finishedAt: null, nextAttemptAt: now });
    // Pending before its job is looked at, so whichever job sends it finds it pending.
    await this.queue.sendNow(delivery.id);
    return toDeliveryDto({ ...delivery, status: 'pending', finishedAt: null, nextAttemptAt: now }, await this.attemptsOf(delivery.id));
  }

  private attemptsOf(deliveryId: string): Promise<DeliveryAttemptEntity[]> {
    return this.dataSource.manager.find(DeliveryAttemptEntity, { where: { deliveryId }, order: { attempt: 'ASC' } });
  }
}

function toDeliveryDto(delivery: DeliveryEntity, attempts: DeliveryAttemptEntity[]): DeliveryDto {
  return {
    delivery_id: delivery.id,
    event: delivery.event,
    status: delivery.status,
    payload: JSON.parse(delivery.body),
    created_at: delivery.createdAt.toISOString(),
    next_attempt_at: delivery.status === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      error: a.error,
      response_body: a.responseBody,
    })),
  };
}
