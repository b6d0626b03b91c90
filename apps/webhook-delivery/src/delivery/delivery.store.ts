import { SendResult } from '../outbound/webhook-sender';

/** A pending delivery with what sending it needs of its webhook. */
export interface DeliveryToSend {
  id: string;
  event: string;
  body: string;
  attemptCount: number;
  /** Since when it is pending: created, or asked for again by a redelivery. */
  pendingSince: Date;
  /** A test event: sent once, and also to a disabled webhook. */
  test: boolean;
  webhookId: string | null;
  /** The webhook's owner. */
  userId: string | null;
  webhookStatus: string | null;
  url: string | null;
  secretSealed: string | null;
  /** The chain of triggered runs of the delivery's run (aas-chain header); null for a delivery made before chains were carried. */
  chainRootId: string | null;
  chainDepth: number | null;
}

export type Outcome =
  | { status: 'succeeded' | 'cancelled' }
  /** `notRetried`: why it ends without the retries it had left, kept with the attempt's error. */
  | { status: 'failed'; notRetried?: string }
  | { status: 'pending'; nextAttemptAt: Date };

/** One attempt and the state it leaves its delivery in. */
export interface AttemptRecord {
  deliveryId: string;
  /** Its webhook, whose health the attempt changes. */
  webhookId: string;
  attempt: number;
  startedAt: Date;
  result: SendResult;
  outcome: Outcome;
}

/**
 * Every statement of the delivery worker (postgres-delivery.store.ts, which batches concurrent
 * calls); an abstract class, so that it is the injection token and a fake can stand in for it.
 */
export abstract class DeliveryStore {
  /** The delivery if it is still pending, with its webhook (nulls when the webhook is gone). */
  abstract pending(deliveryId: string): Promise<DeliveryToSend | undefined>;

  /**
   * Records the attempt (its error as attemptError says), the delivery's new state and its webhook's
   * health (endpoint-health.ts) together; resolves once they are committed. A delivery deleted
   * meanwhile (its webhook or agent was deleted) records nothing.
   */
  abstract recordAttempt(record: AttemptRecord): Promise<void>;

  /** Writes when a delivery that waits without an attempt (its endpoint's circuit is open) will be looked at again, if it is still pending. */
  abstract postpone(deliveryId: string, nextAttemptAt: Date): Promise<void>;

  /** A delivery its endpoint kept waiting past its retry span: failed, with no further attempt, if it is still pending. */
  abstract giveUp(deliveryId: string): Promise<void>;

  /** A delivery whose webhook was disabled or deleted after it was queued. */
  abstract cancel(deliveryId: string): Promise<void>;

  /** The receiver answered 410 Gone: its webhook sends nothing more (disabled, disabled_reason receiver_gone). */
  abstract disableWebhook(webhookId: string): Promise<void>;
}
