import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { QueueNames } from '@aas/contracts';
import { QueueWorkersDrain, inJobRequestContext, SecretBox } from '@aas/platform';
import { DelayedError, Job, UnrecoverableError, Worker } from 'bullmq';
import { isUUID } from 'class-validator';
import { LRUCache } from 'lru-cache';
import { WebhooksEnv } from '../config/webhooks.env';
import { DeliveryJobData } from './delivery-job';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryStore, Outcome } from './delivery-store';
import { nextRetryDelay, parseRetryDelays } from './retry-schedule';
import { SendResult, WebhookSender } from './webhook-sender';

/**
 * Sends deliveries. Any number of processes share the queue; BullMQ gives each
 * job to one worker at a time, and a job whose worker was killed is given to
 * another, which sends it again with the same delivery id. Retries wait on the
 * job itself (moved to delayed), so nothing is lost across restarts. The worker
 * is built here rather than with @Processor so its lock and stall timing come
 * from validated settings.
 */
@Injectable()
export class DeliveryProcessor implements OnApplicationBootstrap {
  private worker?: Worker<DeliveryJobData>;
  private readonly logger = new Logger(DeliveryProcessor.name);
  private readonly delays: number[];
  /** Decrypted secrets by their sealed form: a new secret is a new key, so nothing stale is ever served. */
  private readonly secretCache = new LRUCache<string, string>({ max: 10_000 });

  constructor(
    private readonly store: DeliveryStore,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly config: ConfigService<WebhooksEnv, true>,
    private readonly drain: QueueWorkersDrain,
    private readonly metrics: DeliveryMetrics,
    private readonly queue: DeliveryQueue,
  ) {
    this.delays = parseRetryDelays(config.get('WEBHOOK_RETRY_DELAYS', { infer: true }));
  }

  onApplicationBootstrap(): void {
    const setting = <K extends keyof WebhooksEnv>(key: K) => this.config.get(key, { infer: true });
    this.worker = new Worker<DeliveryJobData>(QueueNames.WebhookDeliveries, inJobRequestContext((job, token) => this.process(job, token)), {
      connection: { url: setting('REDIS_URL'), maxRetriesPerRequest: null },
      prefix: setting('REDIS_PREFIX'),
      concurrency: setting('WEBHOOK_WORKER_CONCURRENCY'),
      lockDuration: setting('WEBHOOK_LOCK_DURATION_MS'),
      stalledInterval: setting('WEBHOOK_STALLED_INTERVAL_MS'),
      // A delivery whose worker died is taken over again and again rather than given up.
      maxStalledCount: 100,
    });
    // Redis connection errors: BullMQ reconnects on its own; without a listener they would crash the process.
    this.worker.on('error', (error) => this.logger.warn(`delivery worker: ${error.message}`));
    // On shutdown it stops taking deliveries and finishes those in flight (each is bounded by WEBHOOK_TIMEOUT_MS).
    this.drain.register(this.worker);
  }

  async process(job: Job<DeliveryJobData>, token?: string): Promise<void> {
    // A payload an older or foreign producer wrote fails its own job for good, not a whole batch of reads.
    if (!isUUID(job.data?.delivery_id)) throw new UnrecoverableError(`job ${job.id} has no valid delivery_id`);
    const delivery = await this.store.pending(job.data.delivery_id);
    if (!delivery) return;
    // A webhook disabled or deleted after this was queued gets nothing more.
    if (delivery.webhookStatus !== 'active') {
      this.metrics.cancelled();
      return this.store.finish(delivery.id, 'cancelled');
    }

    const attempt = delivery.attemptCount + 1;
    const startedAt = new Date();
    const result = await this.sender.send({
      url: delivery.url!,
      secret: this.secretOf(delivery.secretSealed!),
      deliveryId: delivery.id,
      event: delivery.event,
      body: delivery.body,
    });
    const outcome = this.outcomeOf(attempt, result);
    // The job completes (or is rescheduled) only after the attempt is committed.
    await this.store.recordAttempt({ deliveryId: delivery.id, attempt, startedAt, result, outcome });
    this.metrics.attempted(outcome.status, result.durationMs);
    if (outcome.status !== 'succeeded') this.logFailedAttempt(delivery.id, attempt, result, outcome);
    // The receiver says the endpoint is gone for good: stop sending to it.
    if (result.statusCode === 410) await this.store.disableWebhook(delivery.webhookId!);
    if (outcome.status === 'pending') {
      // One chain of retries per delivery, on its own job: a redelivery's job hands the retry over to it.
      if (job.id !== delivery.id) {
        await this.queue.ensureQueued(delivery.id, outcome.nextAttemptAt.getTime() - Date.now());
        return;
      }
      await job.moveToDelayed(outcome.nextAttemptAt.getTime(), token);
      throw new DelayedError();
    }
  }

  private outcomeOf(attempt: number, result: SendResult): Outcome {
    if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return { status: 'succeeded' };
    if (result.statusCode === 410) return { status: 'failed' };
    const delay = nextRetryDelay(attempt, this.delays, Math.random, result.retryAfterMs);
    return delay === null ? { status: 'failed' } : { status: 'pending', nextAttemptAt: new Date(Date.now() + delay) };
  }

  private logFailedAttempt(deliveryId: string, attempt: number, result: SendResult, outcome: Outcome): void {
    const next = outcome.status === 'pending' ? outcome.nextAttemptAt.toISOString() : null;
    this.logger.log(
      { delivery_id: deliveryId, attempt, status_code: result.statusCode, error: result.error, next_attempt_at: next },
      next ? 'webhook delivery attempt failed; retrying' : 'webhook delivery failed for good',
    );
  }

  private secretOf(sealed: string): string {
    let secret = this.secretCache.get(sealed);
    if (secret === undefined) {
      secret = this.secrets.open(sealed);
      this.secretCache.set(sealed, secret);
    }
    return secret;
  }
}
