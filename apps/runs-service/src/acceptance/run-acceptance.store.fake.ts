import { inUnitOfWork } from '@aas/platform';
import { RunEntity } from '../database/run.entity';
import { AcceptanceTransaction, ClaimedKey, RunAcceptanceStore, ownedKey, scheduledForKey } from './run-acceptance.store';

/**
 * The acceptance tables in memory (keys, counters, stored runs, generations), for unit tests: the work
 * runs at once, and what it wrote stays when it throws. Not built into the app (tsconfig.app.json).
 */
export class FakeRunAcceptanceStore extends RunAcceptanceStore {
  readonly keys = new Map<string, ClaimedKey>();
  readonly counters = new Map<string, number>();
  readonly runs: RunEntity[] = [];
  /** The generation held per agent id (database/agent-generations.ts): a newer claim takes it over, an older one is refused. */
  readonly generations = new Map<string, number>();
  /** The runs each chain has started (run_chains). */
  readonly chains = new Map<string, number>();

  inTransaction<T>(work: (tx: AcceptanceTransaction) => Promise<T>): Promise<T> {
    return inUnitOfWork<object, T>((inside) => inside({}), (_handle, tx) => work(this.statements(tx)));
  }

  private statements(tx: AcceptanceTransaction['tx']): AcceptanceTransaction {
    return {
      tx,
      claimKeys: async (users: string[], claims: ClaimedKey[]) => {
        const earlier = new Map<string, ClaimedKey>();
        claims.forEach((claim, i) => {
          const owned = ownedKey(users[i], claim.key);
          const taken = this.keys.get(owned);
          if (taken) earlier.set(owned, taken);
          else this.keys.set(owned, claim);
        });
        return earlier;
      },
      releaseKeys: async (users: string[], keys: string[]) => {
        keys.forEach((key, i) => this.keys.delete(ownedKey(users[i], key)));
      },
      chainRunsStarted: async (roots: string[]) => new Map(roots.map((root) => [root, this.chains.get(root) ?? 0])),
      addChainRuns: async (runs: Map<string, number>) => {
        for (const [root, n] of runs) this.chains.set(root, (this.chains.get(root) ?? 0) + n);
      },
      takeRunNumbers: async (counts: Map<string, number>) => {
        const first = new Map<string, number>();
        for (const [agent, n] of counts) {
          const last = (this.counters.get(agent) ?? 0) + n;
          this.counters.set(agent, last);
          first.set(agent, last - n + 1);
        }
        return first;
      },
      insertWaiting: async (runs: RunEntity[]) => void this.runs.push(...runs),
      claimGenerations: async (claims: Array<{ agentId: string; generation: number }>) => {
        const refused = new Set<string>();
        for (const claim of claims) {
          const held = this.generations.get(claim.agentId) ?? 0;
          if (held > claim.generation) refused.add(claim.agentId);
          else this.generations.set(claim.agentId, claim.generation);
        }
        return { refused, stopped: [] };
      },
      findScheduledRuns: async (pairs: Array<{ agentId: string; dueAt: Date }>) =>
        new Map(
          this.runs
            .filter((r) => r.scheduledFor && pairs.some((p) => p.agentId === r.agentId && p.dueAt.getTime() === r.scheduledFor!.getTime()))
            .map((r) => [scheduledForKey(r.agentId, r.scheduledFor!), r.id]),
        ),
    };
  }
}
