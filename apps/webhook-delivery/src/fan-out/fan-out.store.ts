import { ChainLink } from '@aas/platform';

/** A run lifecycle event, as the deliveries it makes need it. */
export interface LifecycleEventDeliveries {
  agentId: string;
  runId: string;
  /** The run's agent generation; null from a producer of an earlier version (every generation's webhooks then). */
  agentGeneration: number | null;
  /** The event's job id: with the webhook id, what makes a delivery unique. */
  sourceEventId: string;
  event: string;
  /** The exact body every attempt of each delivery sends. */
  body: string;
  /** The chain of triggered runs the event's run belongs to, for the aas-chain header. */
  chain: ChainLink;
}

/**
 * The fan-out's statement (postgres-fan-out.store.ts); an abstract class, so that it is the injection
 * token and a fake can stand in for it.
 */
export abstract class FanOutStore {
  /**
   * Makes one delivery per webhook of the agent that is active, of the event's agent generation (or
   * from before generations) and subscribed to the event, except those that already have one for this
   * event. Answers the ids of the deliveries it made and of this event's deliveries still pending
   * (made by an earlier run of the event), each once.
   */
  abstract createDeliveries(event: LifecycleEventDeliveries): Promise<string[]>;

  /**
   * runs.purged: deletes the deliveries of these runs with their attempts, in statements of at most
   * `batchSize` deliveries until none is left; answers how many.
   */
  abstract deleteOfRuns(runIds: string[], batchSize?: number): Promise<number>;
}
