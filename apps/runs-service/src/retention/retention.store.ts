import { DeleteRunsQuery, LiveAgent } from '@aas/contracts';
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

/** A user's DELETE /v1/runs, until the purge has deleted every run it matched (table run_deletions). */
export interface RunDeletion {
  userId: string;
  id: string;
  /** The live agents (with their generations) the filters named when it was accepted. */
  agents: LiveAgent[];
  filters: DeleteRunsQuery;
  /** Its acceptance: only runs finished by then are deleted. */
  finishedBefore: Date;
  matched: number;
  deleted: number;
  createdAt: Date;
}

/**
 * The statements of retention and of deletes by filter (postgres-retention.store.ts); an abstract class, so
 * that it is the injection token.
 */
export abstract class RetentionStore {
  /**
   * In `tx`: deletes up to `limit` finished runs of `scope`, oldest end first, with their events, skipping
   * runs another transaction holds; records runs.purged for them in the outbox. Answers what it deleted.
   */
  abstract purgeBatch(tx: Transaction, scope: PurgeScope, limit: number): Promise<PurgedBatch>;

  /** In `tx`: how many of the user's runs the filters match that are finished now, and the transaction's time. */
  abstract countDeletable(tx: Transaction, userId: string, agents: LiveAgent[], filters: DeleteRunsQuery): Promise<{ matched: number; now: Date }>;

  /** In `tx`: stores the deletion unless the user has one already; answers whether it did. */
  abstract insertDeletion(tx: Transaction, deletion: Omit<RunDeletion, 'id' | 'deleted' | 'createdAt'>): Promise<boolean>;

  abstract findDeletion(userId: string): Promise<RunDeletion | undefined>;

  /** Every deletion not done yet, oldest first. */
  abstract pendingDeletions(): Promise<RunDeletion[]>;

  /** As purgeBatch, for the runs a deletion matches; counts them as deleted on it. */
  abstract deletionBatch(tx: Transaction, deletion: RunDeletion, limit: number): Promise<PurgedBatch>;

  /** Whether any run the deletion matches is left (one another transaction held, skipped by its batches). */
  abstract deletionRemains(deletion: RunDeletion): Promise<boolean>;

  /** Forgets the deletion, done (this one: not a later one of the same user). */
  abstract finishDeletion(deletion: RunDeletion): Promise<void>;
}
