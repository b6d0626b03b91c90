import { DeliveryAttemptEntity } from '../database/delivery-attempt.entity';
import { DeliveryEntity, DeliveryStatus } from '../database/delivery.entity';

/** One page of a webhook's deliveries, and how many it has in all. */
export interface DeliveryPage {
  deliveries: DeliveryEntity[];
  total: number;
}

/**
 * The statements of delivery history and redelivery (postgres-delivery-history.store.ts); an abstract
 * class, so that it is the injection token and a fake can stand in for it.
 */
export abstract class DeliveryHistoryStore {
  /** The webhook's deliveries (those in `status` when given), newest first, `limit` of them after skipping `offset`. */
  abstract page(webhookId: string, offset: number, limit: number, status?: DeliveryStatus): Promise<DeliveryPage>;

  /** The attempts of these deliveries, each delivery's in attempt order. */
  abstract attemptsOf(deliveryIds: string[]): Promise<DeliveryAttemptEntity[]>;

  abstract find(webhookId: string, deliveryId: string): Promise<DeliveryEntity | null>;

  /** Pending again from `at`, whatever its state (a redelivery): due then, and its retry span counted from then. */
  abstract markPending(deliveryId: string, at: Date): Promise<void>;

  /** A pending test event of the webhook, made now (its source event id is its own, so it never meets another). */
  abstract insertTest(webhookId: string, event: string, body: string): Promise<DeliveryEntity>;

  /** The ids of the webhook's failed deliveries (test events left out) made at or after `since`, oldest first, `limit` at most. */
  abstract failedSince(webhookId: string, since: Date, limit: number): Promise<string[]>;

  /**
   * Makes those of the deliveries that are still failed pending again, each due at its own time (as
   * markPending), and answers their ids: of two requests for the same deliveries at once, each is made
   * pending by one.
   */
  abstract markFailedPending(deliveries: ScheduledDelivery[]): Promise<string[]>;
}

/** A delivery and when it is due. */
export interface ScheduledDelivery {
  id: string;
  at: Date;
}
