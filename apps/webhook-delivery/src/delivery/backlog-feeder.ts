import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DeliveryQueue } from './delivery-queue';

/** A backlog's jobs are made this long before they are due, a window at a time. */
export const FEED_AHEAD_MS = 1_000;

/** A delivery of a backlog, and when it is due (ms since the epoch). */
export interface BacklogDelivery {
  id: string;
  dueAt: number;
}

/**
 * Queues a paced backlog (a bulk redelivery: deliveries made pending, each due at its turn) a window at a
 * time, each job made FEED_AHEAD_MS before it is due: making a queue job costs the process CPU and Redis
 * a fraction of a millisecond, and a thousand at once held every other request back for a second or
 * more. Later windows wait on timers in this process; those a stopped process leaves unqueued are
 * pending deliveries without a job, which the lost-delivery sweep queues (within about 10 minutes).
 */
@Injectable()
export class BacklogFeeder implements OnApplicationShutdown {
  private readonly logger = new Logger(BacklogFeeder.name);
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly queue: DeliveryQueue) {}

  /** Queues the deliveries due within the first window now (awaited), the others as their windows come. */
  async feed(deliveries: BacklogDelivery[]): Promise<void> {
    const sorted = [...deliveries].sort((a, b) => a.dueAt - b.dueAt);
    await this.feedWindow(sorted);
  }

  onApplicationShutdown(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private async feedWindow(sorted: BacklogDelivery[]): Promise<void> {
    const now = Date.now();
    const cut = sorted.findIndex((d) => d.dueAt > now + FEED_AHEAD_MS);
    const window = cut === -1 ? sorted : sorted.slice(0, cut);
    const rest = cut === -1 ? [] : sorted.slice(cut);
    if (window.length > 0) await this.queue.queueBacklog(window.map((d) => ({ id: d.id, delayMs: d.dueAt - now })));
    if (rest.length > 0) this.later(rest, rest[0].dueAt - FEED_AHEAD_MS - now);
  }

  private later(rest: BacklogDelivery[], waitMs: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.feedWindow(rest).catch((error: Error) =>
        // Not lost: they are pending in PostgreSQL, and the sweep queues pending deliveries that have no job.
        this.logger.warn({ deliveries: rest.length, error: error.message }, 'could not queue a bulk redelivery window; left to the lost-delivery sweep'),
      );
    }, Math.max(0, waitMs));
    // A process stopping does not wait for them (the sweep has them).
    timer.unref();
    this.timers.add(timer);
  }
}
