import { Transaction } from '@aas/platform';

/** Which finished runs one purge pass deletes: those that ended more than `olderThanDays` ago, of these agents or of all but those. */
export interface PurgeScope {
  olderThanDays: number;
  /** Only these agents' runs (a workspace's own retention); absent: every agent's but `exceptAgentIds`. */
  agentIds?: string[];
  /** Agents whose runs follow another retention (their workspace's). */
  exceptAgentIds: string[];
}

/** What one batch deleted. */
export interface PurgedBatch {
  runIds: string[];
  /** The events that went with them. */
  events: number;
}

/**
 * The retention purge's statement (postgres-retention.store.ts); an abstract class, so that it is the
 * injection token.
 */
export abstract class RetentionStore {
  /**
   * In `tx`: deletes up to `limit` finished runs of `scope`, oldest end first, with their events, skipping
   * runs another transaction holds; records runs.purged for them in the outbox. Answers what it deleted.
   */
  abstract purgeBatch(tx: Transaction, scope: PurgeScope, limit: number): Promise<PurgedBatch>;
}
