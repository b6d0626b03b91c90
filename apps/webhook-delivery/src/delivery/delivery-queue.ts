import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { DeliveryJobData, QueueNames } from '@aas/contracts';
import { JobState, Queue } from 'bullmq';
import { DEFERRED_JOB_PRIORITY, deliveryJob } from './delivery-job';

/** Jobs of a backlog added to Redis in one MULTI, which holds Redis for everyone while it runs. */
const BACKLOG_SLICE = 50;

/** Job states in which a delivery's job is still going to send it. */
const LIVE: ReadonlySet<JobState | 'unknown'> = new Set<JobState>(['waiting', 'prioritized', 'waiting-children', 'delayed', 'active']);

/**
 * A delivery's jobs on the webhook-deliveries queue. A delivery has one chain of attempts, on its own
 * job (job id = delivery id): BullMQ ignores adding a job under an id that exists in any state, so
 * queuing it again is a no-op while that job is live, and also while a failed job under that id is
 * kept (24 hours, removeOnFail), which is removed first here.
 */
@Injectable()
export class DeliveryQueue {
  constructor(@InjectQueue(QueueNames.WebhookDeliveries) private readonly queue: Queue<DeliveryJobData>) {}

  /**
   * Queues new deliveries (a lifecycle event's fan-out), in one round trip. A delivery already queued
   * (the event processed again) keeps its job: BullMQ adds nothing under an id it holds.
   */
  async queueNew(deliveryIds: string[]): Promise<void> {
    await this.queue.addBulk(deliveryIds.map((id) => deliveryJob(id)));
  }

  /**
   * Queues deliveries as a backlog: behind every fresh delivery (a priority), each after its own delay.
   * Each on its own job, as queueNew: one whose id is still held by a failed job is left to the
   * lost-delivery sweep.
   */
  async queueBacklog(deliveries: Array<{ id: string; delayMs: number }>): Promise<void> {
    const jobs = deliveries.map(({ id, delayMs }) => {
      const job = deliveryJob(id);
      return { ...job, opts: { ...job.opts, priority: DEFERRED_JOB_PRIORITY, delay: Math.max(0, Math.round(delayMs)) } };
    });
    for (let i = 0; i < jobs.length; i += BACKLOG_SLICE) await this.queue.addBulk(jobs.slice(i, i + BACKLOG_SLICE));
  }

  /**
   * Queues the delivery's own job, `delayMs` from now, unless it has a live one (which keeps its own
   * time). Answers whether a job was added.
   */
  async ensureQueued(deliveryId: string, delayMs = 0): Promise<boolean> {
    const state = await this.queue.getJobState(deliveryId);
    if (LIVE.has(state)) return false;
    // Failed for good (or completed and not yet removed): it would block the add.
    if (state !== 'unknown') await this.queue.remove(deliveryId);
    const job = deliveryJob(deliveryId);
    await this.queue.add(job.name, job.data, { ...job.opts, delay: Math.max(0, Math.round(delayMs)) });
    return true;
  }

  /**
   * Has the delivery sent once more now (a redelivery; its row is already pending). A retry waiting on
   * its own job is moved up rather than joined by a second job, so the two do not both send; a job
   * about to run is left to send it. Only while an attempt is in flight does a second job, under an id
   * of its own, send it again, since that attempt began before the request (its retries, if any, go
   * back to the delivery's own job: DeliveryProcessor).
   */
  async sendNow(deliveryId: string): Promise<void> {
    const state = await this.queue.getJobState(deliveryId);
    switch (state) {
      case 'delayed':
        try {
          await this.queue.getJob(deliveryId).then((job) => job?.promote());
        } catch (error) {
          // It left the delayed set meanwhile (its time came, or a worker took it): it sends anyway.
          if ((await this.queue.getJobState(deliveryId)) === 'delayed') throw error;
        }
        return;
      case 'waiting':
      case 'prioritized':
      case 'waiting-children':
        return;
      case 'active': {
        const job = deliveryJob(deliveryId, `${deliveryId}-redelivery-${Date.now()}`);
        await this.queue.add(job.name, job.data, job.opts);
        return;
      }
      default:
        await this.ensureQueued(deliveryId);
    }
  }
}
