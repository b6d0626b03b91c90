import { Injectable } from '@nestjs/common';
import { ProblemDetailDto } from '@aas/contracts';

/** How long a chain runs-service refused for its run limit is refused here without asking again. */
export const EXHAUSTED_CHAIN_MEMORY_MS = 10 * 60_000;
/** Chains remembered at most; the oldest is forgotten first. */
const MAX_CHAINS = 10_000;

/**
 * The chains of triggered runs that runs-service refused for TRIGGER_CHAIN_MAX_RUNS, remembered by this
 * replica for a while: a chain's count only grows (until it is purged, days later), so its further starts
 * are refused from memory, without a request and a transaction each. A chain that ran out sets off many
 * more starts than it made (every run of it ends, and each end starts all its followers), and these now
 * cost a map look-up. Another replica learns it from its own first refusal.
 */
@Injectable()
export class ExhaustedChains {
  private readonly chains = new Map<string, { refusal: ProblemDetailDto; until: number }>();

  remember(rootRunId: string, refusal: ProblemDetailDto, now = Date.now()): void {
    this.chains.delete(rootRunId);
    this.chains.set(rootRunId, { refusal, until: now + EXHAUSTED_CHAIN_MEMORY_MS });
    if (this.chains.size > MAX_CHAINS) this.chains.delete(this.chains.keys().next().value!);
  }

  /** runs-service's refusal of the chain, while it is remembered. */
  refusalOf(rootRunId: string, now = Date.now()): ProblemDetailDto | undefined {
    const known = this.chains.get(rootRunId);
    if (known && known.until > now) return known.refusal;
    if (known) this.chains.delete(rootRunId);
    return undefined;
  }
}
