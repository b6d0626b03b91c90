import { Transaction } from '@aas/platform';
import { ClaimOutcome, GenerationClaim } from '../database/agent-generations';
import { RunEventEntity } from '../database/run-event.entity';
import { RunEntity } from '../database/run.entity';

/**
 * The statements of reading, deleting and taking over runs (postgres-run.store.ts); an abstract
 * class, so that it is the injection token and a fake can stand in for it.
 */
export abstract class RunStore {
  abstract findById(runId: string): Promise<RunEntity | null>;

  /** The run, if it is of this agent and user. */
  abstract findOwned(runId: string, agentId: string, userId: string): Promise<RunEntity | null>;

  abstract findByIds(runIds: string[]): Promise<RunEntity[]>;

  /** The run's events in index order, after `afterIndex` (exclusive) when given, at most `limit`. */
  abstract events(runId: string, afterIndex: number | undefined, limit: number): Promise<RunEventEntity[]>;

  /** Deletes the run with its events, in `tx`; its deliveries follow once it commits (runs.purged). */
  abstract delete(tx: Transaction, runId: string): Promise<void>;

  /** The generation whose runs are held for this agent id, if any was claimed (database/agent-generations.ts). */
  abstract heldGeneration(agentId: string): Promise<number | undefined>;

  /** In `tx`: the generation takes the agent id over (deleting an older one's runs), or is refused. */
  abstract claimGeneration(tx: Transaction, claim: GenerationClaim): Promise<ClaimOutcome>;
}
