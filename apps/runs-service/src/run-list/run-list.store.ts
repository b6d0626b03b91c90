import { ListRunsMessage, ListRunsQuery, LiveAgent } from '@aas/contracts';
import { RunEntity } from '../database/run.entity';

/**
 * Every statement of the run list (postgres-run-list.store.ts): its pages, its totals and the
 * totals it remembers; an abstract class, so that it is the injection token and a fake can stand in.
 */
export abstract class RunListStore {
  /** The runs of the agent and user that the list's filters match, newest first, `limit` from `offset`. */
  abstract page(message: ListRunsMessage, offset: number, limit: number): Promise<RunEntity[]>;

  /** How many runs the list's filters match. */
  abstract count(message: ListRunsMessage): Promise<number>;

  /** The runs of `agents` (each of its generation) and user that the filters match, newest first. */
  abstract pageAcrossAgents(userId: string, agents: LiveAgent[], query: ListRunsQuery, offset: number, limit: number): Promise<RunEntity[]>;

  /**
   * How many runs of `agents` and user the filters match: from the kept counts when the filters allow
   * (exact), else counted when at most `exactUpTo`, else the planner's estimate (marked as one).
   */
  abstract countAcrossAgents(userId: string, agents: LiveAgent[], query: ListRunsQuery, exactUpTo: number): Promise<RunTotal>;

  /**
   * The statement selecting the ids and agents (columns `id`, `agent_id`) of the runs of `agents` and user that the filters
   * match, oldest first, for a caller to run inside its own transaction (bulk-actions/ resolves its runs so).
   */
  abstract matchingRunsQuery(userId: string, agents: LiveAgent[], query: ListRunsQuery): { sql: string; parameters: unknown[] };

  /**
   * Deletes remembered totals counted too long ago or left behind by their agent's runs changing, in
   * batches until one comes back short or `stop` says so (asked between batches); answers how many.
   */
  abstract purgeStaleTotals(stop?: () => boolean, batchSize?: number): Promise<number>;
}

/** A list's total, and whether it is the database's estimate rather than a count. */
export interface RunTotal {
  total: number;
  estimate: boolean;
}
