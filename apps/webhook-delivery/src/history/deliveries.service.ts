import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  DeliveryDto,
  DeliveryListResponse,
  DeliveryRefMessage,
  ListDeliveriesMessage,
  RedeliverMessage,
  RedeliverSinceMessage,
  RedeliverSinceResponse,
  RunLifecycleEventName,
  SendTestEventMessage,
} from '@aas/contracts';
import { ConflictError, ResourceNotFoundError } from '@aas/problem-details';
import { isUUID } from 'class-validator';
import { WebhooksEnv } from '../config/webhooks.env';
import { DeliveryEntity } from '../database/delivery.entity';
import { BacklogFeeder } from '../delivery/backlog-feeder';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import { DeliveryHistoryStore } from './delivery-history.store';
import { toDeliveryDto } from './delivery.mapper';
import { RedeliveryPacing } from './redelivery-pacing';
import { RequestedSendLimits } from './requested-send-limits';
import { testEventBody } from './test-event';

const DEFAULT_PAGE_SIZE = 50;
const FLIP_SLICE = 100;

/**
 * What users of webhook products keep asking for: the deliveries of a webhook with every attempt,
 * redelivery (one, or every failed one since a time), and a test event. Every request finds the webhook
 * as the caller's first (a 404 otherwise), before anything is charged or sent.
 */
@Injectable()
export class DeliveriesService {
  private readonly redeliverSinceMax: number;

  constructor(
    private readonly history: DeliveryHistoryStore,
    private readonly subscriptions: SubscriptionsService,
    private readonly queue: DeliveryQueue,
    private readonly feeder: BacklogFeeder,
    private readonly limits: RequestedSendLimits,
    private readonly pacing: RedeliveryPacing,
    config: ConfigService<WebhooksEnv, true>,
  ) {
    this.redeliverSinceMax = config.get('WEBHOOK_REDELIVER_SINCE_MAX', { infer: true });
  }

  /** Newest first, paged like the run list (`page` 1-based, `page_size` at most 200). */
  async list(message: ListDeliveriesMessage): Promise<DeliveryListResponse> {
    const webhook = await this.subscriptions.find(message.user_id, message.agent_id, message.webhook_id);
    const page = Math.max(message.page ?? 1, 1);
    const pageSize = message.page_size || DEFAULT_PAGE_SIZE;
    const { deliveries, total } = await this.history.page(webhook.id, (page - 1) * pageSize, pageSize, message.filter_status);
    const attempts = await this.history.attemptsOf(deliveries.map((d) => d.id));
    return { deliveries: deliveries.map((d) => toDeliveryDto(d, attempts.filter((a) => a.deliveryId === d.id))), total };
  }

  async get(message: DeliveryRefMessage): Promise<DeliveryDto> {
    const delivery = await this.findDelivery(message);
    return toDeliveryDto(delivery, await this.history.attemptsOf([delivery.id]));
  }

  /**
   * Sends a delivery again now, with the same id and body (a new attempt), whatever its state. A pending
   * delivery waiting to retry has that retry moved up, not a second job that would send it too.
   */
  async redeliver(message: RedeliverMessage): Promise<DeliveryDto> {
    const delivery = await this.findDelivery(message);
    const now = new Date();
    await this.history.markPending(delivery.id, now);
    // Pending before its job is looked at, so whichever job sends it finds it pending.
    await this.queue.sendNow(delivery.id);
    const pending = { ...delivery, status: 'pending' as const, finishedAt: null, nextAttemptAt: now, pendingSince: now };
    return toDeliveryDto(pending, await this.history.attemptsOf([delivery.id]));
  }

  /**
   * A signed sample of one of the run events, sent through the delivery worker like any delivery (its
   * limits, circuit and signing), once, and also to a disabled webhook, whose endpoint one may want to
   * try before enabling it again. Charged per webhook and per user.
   */
  async sendTest(message: SendTestEventMessage): Promise<DeliveryDto> {
    const webhook = await this.subscriptions.find(message.user_id, message.agent_id, message.webhook_id);
    await this.limits.chargeTestEvent(webhook);
    const event = (message.event ?? webhook.events[0]) as RunLifecycleEventName;
    const delivery = await this.history.insertTest(webhook.id, event, testEventBody(event, webhook.agentId, new Date()));
    await this.queue.queueNew([delivery.id]);
    return toDeliveryDto(delivery, []);
  }

  /**
   * Every failed delivery of the webhook made at or after `since`, oldest first, up to
   * WEBHOOK_REDELIVER_SINCE_MAX per request and as many as the user's pacing has room for, made pending
   * and queued; `more` says whether failed ones are left. Only failed deliveries are taken, so a request
   * repeated (a double click) finds those it queued pending and queues nothing twice. Refused for a
   * disabled webhook, which would cancel them all.
   */
  async redeliverSince(message: RedeliverSinceMessage): Promise<RedeliverSinceResponse> {
    const webhook = await this.subscriptions.find(message.user_id, message.agent_id, message.webhook_id);
    if (webhook.status !== 'active') {
      throw new ConflictError('This webhook is disabled: enable it (PATCH status active) before redelivering its failed deliveries');
    }
    await this.limits.chargeRequestedSend(webhook.userId);
    const found = await this.history.failedSince(webhook.id, new Date(message.since), this.redeliverSinceMax + 1);
    const candidates = found.slice(0, this.redeliverSinceMax);
    if (candidates.length === 0) return { queued: 0, more: false };
    const { queued, turns } = await this.redeliverPaced(webhook.userId, candidates);
    return { queued, more: found.length > turns };
  }

  /**
   * Takes the user's turns (RedeliveryPacing) before the deliveries are made pending, so those that get
   * none stay failed for a later request; each is due, and shows as next_attempt_at, at its turn, and is
   * queued shortly before it (BacklogFeeder), behind every fresh delivery. Turns after the last one used
   * (a concurrent request took those deliveries) are given back.
   */
  private async redeliverPaced(userId: string, candidates: string[]): Promise<{ queued: number; turns: number }> {
    const sends = await this.pacing.reserve(userId, candidates.length);
    const now = Date.now();
    const scheduled = candidates.slice(0, sends.granted).map((id, turn) => ({ id, turn, dueAt: now + sends.firstDelayMs + turn * sends.spacingMs }));
    const pending = new Set<string>();
    // A hundred rows a statement: one statement for hundreds held other tenants' commits behind its WAL.
    for (let i = 0; i < scheduled.length; i += FLIP_SLICE) {
      const slice = scheduled.slice(i, i + FLIP_SLICE).map(({ id, dueAt }) => ({ id, at: new Date(dueAt) }));
      for (const id of await this.history.markFailedPending(slice)) pending.add(id);
    }
    const queued = scheduled.filter((s) => pending.has(s.id));
    if (queued.length > 0) await this.feeder.feed(queued);
    await this.pacing.release(userId, sends, queued.length === 0 ? 0 : queued[queued.length - 1].turn + 1);
    return { queued: queued.length, turns: sends.granted };
  }

  private async findDelivery(message: DeliveryRefMessage): Promise<DeliveryEntity> {
    const webhook = await this.subscriptions.find(message.user_id, message.agent_id, message.webhook_id);
    const delivery = isUUID(message.delivery_id) ? await this.history.find(webhook.id, message.delivery_id) : null;
    if (!delivery) throw new ResourceNotFoundError('Delivery', message.delivery_id);
    return delivery;
  }
}
