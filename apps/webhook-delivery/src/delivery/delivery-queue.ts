import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { JobState, Queue } from 'bullmq';
import { DeliveryJobData, deliveryJob } from './delivery-job';

/** Job states in which a delivery's job is still going to send it. */
const LIVE: ReadonlySet<JobState | 'unknown'> = new Set<JobState>(['waiting', 'prioritized', 'waiting-children', 'delayed', 'active']);

/**
 * A delivery's own job on the webhook-deliveries queue (job id = delivery id). BullMQ ignores adding a
 * job under an id that exists in any state, so queuing it again is a no-op while that job is live,
 * and also while a failed job under that id is kept (24 hours, removeOnFail), which is removed first here.
 */
@Injectable()
export class DeliveryQueue {
  constructor(@InjectQueue(QueueNames.WebhookDeliveries) private readonly queue: Queue<DeliveryJobData>) {}

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
}
