import { DeliveryJobData, JobNames } from '@aas/contracts';
import { withRequestId } from '@aas/platform';
import { JobsOptions } from 'bullmq';

/**
 * A backlog's job waits behind every job without a priority (BullMQ serves those first): a delivery
 * deferred by its endpoint's limits or circuit, and a bulk redelivery's, so neither queues ahead of
 * anyone's fresh deliveries.
 */
export const DEFERRED_JOB_PRIORITY = 1;

/**
 * A job that sends a delivery; by default under the delivery's id, so queuing a delivery that is
 * already queued (a re-processed lifecycle event) adds nothing.
 *
 * A completed job is removed at once: the delivery row and its attempts are the record, only pending
 * deliveries are ever queued again, and an hour of completed jobs would be millions of them in Redis
 * at a few thousand deliveries a second. The receiver's answers are retried on the delivery's own
 * schedule (the job is moved to delayed); `attempts` only covers the job failing outright, e.g. the
 * database being unreachable when the attempt is recorded, so the delivery is sent again rather than
 * left pending with no job.
 */
export function deliveryJob(deliveryId: string, jobId = deliveryId): { name: string; data: DeliveryJobData; opts: JobsOptions } {
  return {
    name: JobNames.Deliver,
    data: withRequestId({ delivery_id: deliveryId }),
    opts: {
      jobId,
      attempts: 6,
      backoff: { type: 'exponential', delay: 2000 },
      removeOnComplete: true,
      removeOnFail: { age: 24 * 3600 },
    },
  };
}
