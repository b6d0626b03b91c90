import { OnWorkerEvent, Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { QueueNames } from '@aas/contracts';
import { DelayedError, Job } from 'bullmq';
import { DataSource } from 'typeorm';
import { WebhooksEnv } from '../config/webhooks.env';
import { WebhookEntity } from '../subscriptions/webhook.entity';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { DeliveryEntity } from './delivery.entity';
import { nextRetryDelay, parseRetryDelays } from './retry-schedule';
import { SecretBox } from './secret-box';
import { SendResult, WebhookSender } from './webhook-sender';

/** The job id is the delivery id, or `<delivery id>-redelivery-<time>` for a redelivery. */
interface DeliveryJob {
  delivery_id: string;
}

/**
 * Sends deliveries. Any number of processes share the queue; BullMQ gives each
 * job to one worker at a time, and a job whose worker was killed is given to
 * another, which sends it again with the same delivery id. Retries wait on the
 * job itself (moved to delayed), so nothing is lost across restarts.
 */
@Processor(QueueNames.WebhookDeliveries)
export class DeliveryProcessor extends WorkerHost implements OnApplicationBootstrap {
  private readonly logger = new Logger(DeliveryProcessor.name);
  private readonly delays: number[];

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly config: ConfigService<WebhooksEnv, true>,
  ) {
    super();
    this.delays = parseRetryDelays(config.get('WEBHOOK_RETRY_DELAYS', { infer: true }));
  }

  onApplicationBootstrap(): void {
    this.worker.concurrency = this.config.get('WEBHOOK_WORKER_CONCURRENCY', { infer: true });
  }

  async process(job: Job<DeliveryJob>, token?: string): Promise<void> {
    const manager = this.dataSource.manager;
    const delivery = await manager.findOneBy(DeliveryEntity, { id: job.data.delivery_id });
    if (!delivery || delivery.status !== 'pending') return;
    const webhook = await manager.findOneBy(WebhookEntity, { id: delivery.webhookId });
    // A webhook disabled or deleted after this was queued gets nothing more.
    if (!webhook || webhook.status !== 'active') return this.finish(delivery.id, 'cancelled');

    const attempt = delivery.attemptCount + 1;
    const startedAt = new Date();
    const result = await this.sender.send({
      url: webhook.url,
      secret: this.secrets.open(webhook.secretSealed),
      deliveryId: delivery.id,
      event: delivery.event,
      body: delivery.body,
    });
    await this.recordAttempt(delivery.id, attempt, startedAt, result);

    if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) {
      return this.finish(delivery.id, 'succeeded');
    }
    if (result.statusCode === 410) {
      // The receiver says the endpoint is gone for good: stop sending to it.
      await manager.update(WebhookEntity, { id: webhook.id }, { status: 'disabled', updatedAt: new Date() });
      return this.finish(delivery.id, 'failed');
    }
    const delay = nextRetryDelay(attempt, this.delays, Math.random, result.retryAfterMs);
    if (delay === null) return this.finish(delivery.id, 'failed');
    const at = Date.now() + delay;
    await manager.update(DeliveryEntity, { id: delivery.id }, { nextAttemptAt: new Date(at) });
    await job.moveToDelayed(at, token);
    throw new DelayedError();
  }

  /** Redis connection errors: BullMQ reconnects on its own; without a listener they would crash the process. */
  @OnWorkerEvent('error')
  onError(error: Error): void {
    this.logger.warn(`delivery worker: ${error.message}`);
  }

  private async recordAttempt(deliveryId: string, attempt: number, startedAt: Date, result: SendResult): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.insert(DeliveryAttemptEntity, {
        deliveryId,
        attempt,
        startedAt,
        durationMs: result.durationMs,
        statusCode: result.statusCode,
        error: result.error,
        responseBody: result.responseBody,
      });
      await manager.update(DeliveryEntity, { id: deliveryId }, { attemptCount: attempt });
    });
  }

  private async finish(deliveryId: string, status: 'succeeded' | 'failed' | 'cancelled'): Promise<void> {
    await this.dataSource.manager.update(DeliveryEntity, { id: deliveryId }, { status, nextAttemptAt: null, finishedAt: new Date() });
  }
}
