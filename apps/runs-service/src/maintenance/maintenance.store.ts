import { AgentDeletedEvent } from '@aas/contracts';
import { Transaction } from '@aas/platform';

/**
 * runs-service's upkeep statements (postgres-maintenance.store.ts); an abstract class, so that it is
 * the injection token and a fake can stand in for it.
 */
export abstract class MaintenanceStore {
  /**
   * agent.deleted, in `tx`: the runs and events of that agent generation and older ones,
   * never those of a newer agent that took the id (database/agent-generations.ts). Answers the
   * unfinished runs deleted, whose workers should stop.
   */
  abstract deleteRunsOfDeletedAgent(tx: Transaction, event: AgentDeletedEvent): Promise<string[]>;

  /** Forgets deleted agents' generations once no start of theirs can still be on its way; answers how many. */
  abstract purgeDeletedGenerations(): Promise<number>;

  /** Deletes idempotency keys older than 24 hours in batches until one comes back short or `stop` says so (asked between batches); answers how many. */
  abstract purgeExpiredKeys(stop?: () => boolean, batchSize?: number): Promise<number>;

  /**
   * Forgets the counts of chains of triggered runs that started nothing for RUN_CHAIN_IDLE_DAYS, in batches
   * until one comes back short or `stop` says so; answers how many.
   */
  abstract purgeIdleChains(stop?: () => boolean, batchSize?: number): Promise<number>;
}
