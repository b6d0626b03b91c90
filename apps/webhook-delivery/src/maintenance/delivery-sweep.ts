import { Injectable } from '@nestjs/common';
import { DeliveryQueue } from '../delivery/delivery-queue';
import { LostDeliveryStore, SWEEP_START } from './lost-delivery.store';

/** Deliveries looked at per statement (and their jobs per round of Redis calls). */
export const SWEEP_BATCH_SIZE = 500;
/** How long past its due time a pending delivery may go unsent before it is taken for lost. */
export const OVERDUE_MARGIN_MS = 5 * 60_000;

/**
 * Finds deliveries that nothing is going to send: pending, due (next_attempt_at, or created_at before
 * the first attempt) more than OVERDUE_MARGIN_MS ago, and without a live job, which happens when their
 * job failed for good after its attempts (e.g. PostgreSQL unreachable for minutes) or Redis lost it.
 * Each is queued again under its own job id. A delivery whose job is live (waiting behind a backlog,
 * delayed, or being sent) is left to it, so nothing is sent twice on the sweep's account; one that
 * finished meanwhile gets a job that finds it no longer pending and sends nothing.
 */
@Injectable()
export class DeliverySweep {
  constructor(
    private readonly store: LostDeliveryStore,
    private readonly queue: DeliveryQueue,
  ) {}

  /**
   * Reads the overdue deliveries in due order, a batch at a time (deliveries_pending_due_idx), until a
   * batch comes back short or `stop` says so (asked between batches); answers how many it queued again.
   */
  async requeueLost(stop: () => boolean = () => false, batchSize = SWEEP_BATCH_SIZE, marginMs = OVERDUE_MARGIN_MS): Promise<number> {
    let requeued = 0;
    let after = SWEEP_START;
    for (;;) {
      const rows = await this.store.overdue(after, marginMs, batchSize);
      const added = await Promise.all(rows.map((row) => this.queue.ensureQueued(row.id)));
      requeued += added.filter(Boolean).length;
      if (rows.length < batchSize || stop()) return requeued;
      after = rows[rows.length - 1];
    }
  }
}
