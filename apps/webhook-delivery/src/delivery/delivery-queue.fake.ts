import { DeliveryQueue } from './delivery-queue';

/** What was asked of the webhook-deliveries queue, in order; left out of the build. */
export type QueueCall =
  | { call: 'queueNew'; ids: string[] }
  | { call: 'queueBacklog'; deliveries: Array<{ id: string; delayMs: number }> }
  | { call: 'ensureQueued'; id: string; delayMs: number }
  | { call: 'sendNow'; id: string };

/**
 * The webhook-deliveries queue in memory: the deliveries with a live job (those queued, until a test
 * says their job is gone) and every call. `ensureQueued` adds a job only for a delivery without one, as the real one does.
 */
export class FakeDeliveryQueue implements Pick<DeliveryQueue, 'queueNew' | 'queueBacklog' | 'ensureQueued' | 'sendNow'> {
  readonly calls: QueueCall[] = [];
  readonly live = new Set<string>();

  async queueNew(deliveryIds: string[]): Promise<void> {
    this.calls.push({ call: 'queueNew', ids: [...deliveryIds] });
    for (const id of deliveryIds) this.live.add(id);
  }

  async queueBacklog(deliveries: Array<{ id: string; delayMs: number }>): Promise<void> {
    this.calls.push({ call: 'queueBacklog', deliveries: deliveries.map((d) => ({ ...d })) });
    for (const { id } of deliveries) this.live.add(id);
  }

  async ensureQueued(deliveryId: string, delayMs = 0): Promise<boolean> {
    this.calls.push({ call: 'ensureQueued', id: deliveryId, delayMs });
    if (this.live.has(deliveryId)) return false;
    this.live.add(deliveryId);
    return true;
  }

  async sendNow(deliveryId: string): Promise<void> {
    this.calls.push({ call: 'sendNow', id: deliveryId });
    this.live.add(deliveryId);
  }

  /** The delivery's job ran and is gone (completed, or lost). */
  forget(deliveryId: string): void {
    this.live.delete(deliveryId);
  }
}
