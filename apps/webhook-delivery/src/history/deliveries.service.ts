import { Injectable } from '@nestjs/common';
import { DeliveryDto, DeliveryListResponse, ListDeliveriesMessage, RedeliverMessage } from '@aas/contracts';
import { ResourceNotFoundError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import { DeliveryHistoryStore } from './delivery-history.store';
import { toDeliveryDto } from './delivery.mapper';

const DEFAULT_PAGE_SIZE = 50;

/** What users of webhook products keep asking for: the deliveries of a webhook with every attempt, and redelivery. */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly history: DeliveryHistoryStore,
    private readonly subscriptions: SubscriptionsService,
    private readonly queue: DeliveryQueue,
  ) {}

  /** Newest first, paged like the run list (`page` 1-based, `page_size` at most 200). */
  async list(message: ListDeliveriesMessage): Promise<DeliveryListResponse> {
    const webhook = await this.subscriptions.find(message.user_id, message.agent_id, message.webhook_id);
    const page = Math.max(message.page ?? 1, 1);
    const pageSize = message.page_size || DEFAULT_PAGE_SIZE;
    const { deliveries, total } = await this.history.page(webhook.id, (page - 1) * pageSize, pageSize);
    const attempts = await this.history.attemptsOf(deliveries.map((d) => d.id));
    return { deliveries: deliveries.map((d) => toDeliveryDto(d, attempts.filter((a) => a.deliveryId === d.id))), total };
  }

  /**
   * Sends a delivery again now, with the same id and body (a new attempt), whatever its state. A pending
   * delivery waiting to retry has that retry moved up, not a second job that would send it too.
   */
  async redeliver(message: RedeliverMessage): Promise<DeliveryDto> {
    const webhook = await this.subscriptions.find(message.user_id, message.agent_id, message.webhook_id);
    const delivery = isUUID(message.delivery_id) ? await this.history.find(webhook.id, message.delivery_id) : null;
    if (!delivery) throw new ResourceNotFoundError('Delivery', message.delivery_id);
    const now = new Date();
    await this.history.markPending(delivery.id, now);
    // Pending before its job is looked at, so whichever job sends it finds it pending.
    await this.queue.sendNow(delivery.id);
    const pending = { ...delivery, status: 'pending' as const, finishedAt: null, nextAttemptAt: now, pendingSince: now };
    return toDeliveryDto(pending, await this.history.attemptsOf([delivery.id]));
  }
}
