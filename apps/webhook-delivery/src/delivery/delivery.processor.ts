import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DeliveryJobData, QueueNames, parseJob } from '@aas/contracts';
import { QueueWorkersDrain, inJobRequestContext } from '@aas/platform';
import { DelayedError, Job, Worker } from 'bullmq';
import { WebhooksEnv } from '../config/webhooks.env';
import { endpointHealthOf } from '../fairness/circuit-breaker';
import { deferralOf, giveUpAt } from '../fairness/deferral';
import { Admission, CircuitChange, EndpointGate, Pass } from '../fairness/endpoint-gate';
import { SendResult, WebhookSender } from '../outbound/webhook-sender';
import { SigningSecrets } from '../signing/signing-secrets';
import { DeliveryMetrics } from './delivery-metrics';
import { DEFERRED_JOB_PRIORITY } from './delivery-job';
import { DeliveryQueue } from './delivery-queue';
import { DeliveryStore, DeliveryToSend, Outcome } from './delivery.store';
import { nextRetryDelay, parseRetryDelays } from './retry-schedule';


type Held = Exclude<Admission, { kind: 'admitted' }>;

const NOT_PUBLIC =
  'this installation does not call non-public addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS is false); change the URL, or its DNS, and redeliver';

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

  constructor(
    private readonly store: DeliveryStore,
    private readonly sender: WebhookSender,
    private readonly secrets: SigningSecrets,
    private readonly config: ConfigService<WebhooksEnv, true>,
    private readonly drain: QueueWorkersDrain,
    private readonly metrics: DeliveryMetrics,
    private readonly queue: DeliveryQueue,
    private readonly gate: EndpointGate,
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
    const delivery = await this.store.pending(parseJob(QueueNames.WebhookDeliveries, job).data.delivery_id);
    if (!delivery) return;
    // A webhook disabled or deleted after this was queued gets nothing more; but a test event is what
    // its owner sends to try a disabled webhook's endpoint before enabling it again.
    const sendable = delivery.webhookStatus === 'active' || (delivery.test && delivery.webhookStatus === 'disabled');
    if (!sendable) {
      this.metrics.cancelled();
      return this.store.cancel(delivery.id);
    }

    const secret = this.secrets.open(delivery.secretSealed!);
    const admission = await this.gate.admit({ webhookId: delivery.webhookId!, userId: delivery.userId! });
    if (admission.kind !== 'admitted') return this.defer(job, token, delivery, admission);

    const attempt = delivery.attemptCount + 1;
    const startedAt = new Date();
    const result = await this.sender.send({
      url: delivery.url!,
      secret,
      deliveryId: delivery.id,
      event: delivery.event,
      body: delivery.body,
      chain: delivery.chainRootId === null ? null : { rootRunId: delivery.chainRootId, depth: delivery.chainDepth ?? 0 },
    });
    const outcome = this.outcomeOf(attempt, result, delivery.test);
    // The job completes (or is rescheduled) only after the attempt is committed; the slots are given back meanwhile.
    await Promise.all([
      this.store.recordAttempt({ deliveryId: delivery.id, webhookId: delivery.webhookId!, attempt, startedAt, result, outcome }),
      this.release(admission.pass, result),
    ]);
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

  /**
   * Puts a delivery the gate held back to wait on its job, without an attempt: it holds no worker slot
   * meanwhile and, being in Redis, survives any process. Deferred jobs come back behind fresh ones
   * (a priority), so a backlog one user's endpoints hold back never queues ahead of another's deliveries.
   */
  private async defer(job: Job<DeliveryJobData>, token: string | undefined, delivery: DeliveryToSend, admission: Held): Promise<void> {
    const deferral = deferralOf(admission, {
      now: Date.now(),
      // Each pick of the job started it once; each attempt of the delivery accounts for one of those.
      deferralsBefore: job.attemptsStarted - 1 - delivery.attemptCount,
      giveUpAt: giveUpAt(delivery.pendingSince, this.delays),
      random: Math.random,
    });
    this.metrics.deferred(deferral.reason);
    if (deferral.kind === 'give-up') {
      this.metrics.givenUp();
      this.logger.log(
        { delivery_id: delivery.id, webhook_id: delivery.webhookId, pending_since: delivery.pendingSince.toISOString() },
        'webhook delivery failed for good: its endpoint circuit kept it waiting past the retry span',
      );
      return this.store.giveUp(delivery.id);
    }
    if (deferral.shown) await this.store.postpone(delivery.id, new Date(deferral.until));
    if (!(Number(job.priority) > 0)) await job.changePriority({ priority: DEFERRED_JOB_PRIORITY });
    await job.moveToDelayed(deferral.until, token);
    throw new DelayedError();
  }

  /** Gives the slots back; the circuit's change, if any, is logged with the webhook id and counted. */
  private async release(pass: Pass, result: SendResult): Promise<void> {
    let change: CircuitChange | undefined;
    try {
      change = await this.gate.release(pass, endpointHealthOf(result));
    } catch (error) {
      // The attempt is made and must be recorded: its slots lapse with their lease, and the circuit misses one outcome.
      this.logger.warn({ webhook_id: pass.webhookId, error: (error as Error).message }, 'could not give back a delivery slot; it lapses with its lease');
      return;
    }
    if (change?.kind === 'opened') {
      this.metrics.circuitOpened(change.afterProbe);
      this.logger.warn(
        { webhook_id: pass.webhookId, user_id: pass.userId, cooldown_ms: change.cooldownMs, probe_failed: change.afterProbe },
        'webhook endpoint circuit opened: its deliveries wait without attempts until the cool-down is over',
      );
    } else if (change?.kind === 'closed') {
      this.metrics.circuitClosed();
      this.logger.log({ webhook_id: pass.webhookId, user_id: pass.userId }, 'webhook endpoint circuit closed: the endpoint answered');
    }
  }

  /** A refusal that waiting cannot change (410 Gone; an address that is not public) ends the delivery at once, and says so. */
  private outcomeOf(attempt: number, result: SendResult, test: boolean): Outcome {
    if (result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300) return { status: 'succeeded' };
    if (result.statusCode === 410) return { status: 'failed', notRetried: 'the receiver answered 410 Gone, so the webhook is disabled' };
    if (result.addressRefused) return { status: 'failed', notRetried: NOT_PUBLIC };
    if (test) return { status: 'failed', notRetried: 'a test event is sent once' };
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
}
