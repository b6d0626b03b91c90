import { QuotaExceededError } from '@aas/problem-details';

/** A new run as the limits see it: its user, and the chain it continues (none for a run that starts its own). */
export interface LimitedStart {
  userId: string;
  chainRootId?: string;
}

/** Which new runs fit, and how many each chain takes. */
export interface LimitsVerdict<T> {
  refused: Map<T, QuotaExceededError>;
  chainRuns: Map<string, number>;
}

/**
 * The limits on starting runs (docs/quotas-and-limits.md): runs waiting for admission per user
 * (QUOTA_WAITING_RUNS_PER_USER, quota `waiting_runs_per_user`) and runs one chain of triggers may
 * start besides its root (TRIGGER_CHAIN_MAX_RUNS, quota `trigger_chain_runs`); null: no limit.
 */
export class RunStartLimits {
  readonly waitingPerUser: number | null;
  readonly runsPerChain: number | null;

  constructor(waitingPerUser: number, runsPerChain: number) {
    this.waitingPerUser = waitingPerUser === 0 ? null : waitingPerUser;
    this.runsPerChain = runsPerChain === 0 ? null : runsPerChain;
  }

  /**
   * Goes through the new runs in order: one whose chain has started its most is refused, then one whose
   * user has its most waiting; the others fit and take their room. `waiting` is each user's runs waiting
   * (counted up to the limit), `started` each chain's runs so far.
   */
  judge<T>(starts: T[], of: (start: T) => LimitedStart, waiting: Map<string, number>, started: Map<string, number>): LimitsVerdict<T> {
    const refused = new Map<T, QuotaExceededError>();
    const chainRuns = new Map<string, number>();
    const queued = new Map<string, number>();
    for (const start of starts) {
      const { userId, chainRootId: root } = of(start);
      if (root !== undefined && this.runsPerChain !== null && (started.get(root) ?? 0) + (chainRuns.get(root) ?? 0) >= this.runsPerChain) {
        refused.set(start, this.chainFull(root));
        continue;
      }
      const userWaiting = (waiting.get(userId) ?? 0) + (queued.get(userId) ?? 0);
      if (this.waitingPerUser !== null && userWaiting >= this.waitingPerUser) {
        refused.set(start, this.waitingFull());
        continue;
      }
      queued.set(userId, (queued.get(userId) ?? 0) + 1);
      if (root !== undefined) chainRuns.set(root, (chainRuns.get(root) ?? 0) + 1);
    }
    return { refused, chainRuns };
  }

  private chainFull(root: string): QuotaExceededError {
    const limit = this.runsPerChain!;
    return new QuotaExceededError(
      `The chain of triggered runs from run ${root} has started ${limit} runs, the most one chain may start (quota trigger_chain_runs is ${limit}, TRIGGER_CHAIN_MAX_RUNS)`,
      'trigger_chain_runs',
      limit,
    );
  }

  private waitingFull(): QuotaExceededError {
    const limit = this.waitingPerUser!;
    return new QuotaExceededError(
      `You have ${limit} runs waiting for admission, the most one user may have queued (quota waiting_runs_per_user is ${limit}); start more once some of them have started`,
      'waiting_runs_per_user',
      limit,
    );
  }
}
