import { Transaction } from '@aas/platform';
import { ClaimOutcome, GenerationClaim } from '../database/agent-generations';
import { RunEntity } from '../database/run.entity';

/** A key's run, taken now or by an earlier request. */
export interface ClaimedKey {
  key: string;
  agentId: string;
  runId: string;
}

/** The statements of accepting runs, inside one transaction (postgres-run-acceptance.store.ts). */
export interface AcceptanceTransaction {
  /** The unit of work's handle: for the admission in it, and what follows its commit (afterCommit). */
  readonly tx: Transaction;
  /**
   * Takes each key for its run (a key older than 24 hours is free again); answers the earlier run of
   * each key that was taken before, by `ownedKey` (keys are per user).
   */
  claimKeys(userIds: string[], claims: ClaimedKey[]): Promise<Map<string, ClaimedKey>>;
  /** Frees keys claimed for starts that were then refused, so that a retry is judged again rather than answered with no run. */
  releaseKeys(userIds: string[], keys: string[]): Promise<void>;
  /** Locks the chains' counts (root order; held to the commit) and answers the runs each has started; a new chain has none. */
  chainRunsStarted(rootRunIds: string[]): Promise<Map<string, number>>;
  /** Adds runs to the chains' counts. */
  addChainRuns(runs: Map<string, number>): Promise<void>;
  /** Each agent generation takes its id over (deleting an older one's runs), or is refused: database/agent-generations.ts. */
  claimGenerations(claims: GenerationClaim[]): Promise<ClaimOutcome>;
  /** The runs already made for these (agent, fire time) pairs, by `scheduledForKey`. */
  findScheduledRuns(pairs: Array<{ agentId: string; dueAt: Date }>): Promise<Map<string, string>>;
  /** The next `count` run numbers of each agent: the first number of each agent's block. */
  takeRunNumbers(counts: Map<string, number>): Promise<Map<string, number>>;
  /** Stores the runs, waiting for admission. */
  insertWaiting(runs: RunEntity[]): Promise<void>;
}

/**
 * Transactions of accepting runs; an abstract class, so that it is the injection token and a fake
 * (run-acceptance.store.fake.ts) can stand in for it.
 */
export abstract class RunAcceptanceStore {
  /** Runs `work` in one transaction on the acceptance connections: committed when it resolves, rolled back when it throws. */
  abstract inTransaction<T>(work: (tx: AcceptanceTransaction) => Promise<T>): Promise<T>;
}

/** A key as its user owns it: two users' equal keys are two keys. */
export function ownedKey(userId: string, key: string): string {
  return `${userId}/${key}`;
}

export function scheduledForKey(agentId: string, dueAt: Date): string {
  return `${agentId}@${dueAt.getTime()}`;
}
