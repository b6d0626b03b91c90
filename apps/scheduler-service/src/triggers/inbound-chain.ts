import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InboundHookMessage, ProblemDetailDto } from '@aas/contracts';
import { CHAIN_HEADER, InstallationChainKey } from '@aas/platform';
import { QuotaExceededError } from '@aas/problem-details';
import { SchedulerEnv } from '../config/scheduler.env';
import { ExhaustedChains } from './exhausted-chains';

/** Where an inbound call's run stands in a chain: depth 0 and no root for a call that starts its own. */
export interface InboundChainLink {
  depth: number;
  chain_root_id?: string;
}

/**
 * Inbound calls made by this installation's own webhook deliveries (a webhook pointed at an inbound URL
 * of the same installation) carry the `aas-chain` header, signed with the installation's key: their run
 * continues the chain of the run the delivery is about, one hop deeper, instead of starting a new one at
 * depth 0, so such loops are bounded by TRIGGER_MAX_DEPTH and TRIGGER_CHAIN_MAX_RUNS like event triggers.
 * A forged, stale or absent header is ignored: the run starts a chain of its own.
 */
@Injectable()
export class InboundChains {
  constructor(
    private readonly key: InstallationChainKey,
    private readonly exhausted: ExhaustedChains,
    private readonly config: ConfigService<SchedulerEnv, true>,
  ) {}

  linkOf(message: InboundHookMessage): InboundChainLink {
    const link = this.key.verify(message.headers[CHAIN_HEADER], {
      deliveryId: message.headers['webhook-id'] ?? '',
      body: message.body,
      target: `${message.trigger_id}/${message.token}`,
      now: new Date(),
    });
    if (!link) return { depth: 0 };
    const depth = link.depth + 1;
    const maxDepth = this.config.get('TRIGGER_MAX_DEPTH', { infer: true });
    if (depth > maxDepth) {
      throw new QuotaExceededError(
        `This call continues the chain of triggered runs from run ${link.rootRunId}, which would be ${depth} deep, more than TRIGGER_MAX_DEPTH (${maxDepth})`,
        'trigger_chain_depth',
        maxDepth,
      );
    }
    const full = this.exhausted.refusalOf(link.rootRunId);
    if (full) throw new QuotaExceededError(full.detail, 'trigger_chain_runs', full.limit ?? 0);
    return { depth, chain_root_id: link.rootRunId };
  }

  /** runs-service refused the call's start: a chain it found full is remembered, as event triggers do. */
  refused(link: InboundChainLink, problem: ProblemDetailDto): void {
    if (link.chain_root_id !== undefined && problem.quota === 'trigger_chain_runs') this.exhausted.remember(link.chain_root_id, problem);
  }
}

/** The headers a run keeps: the chain header is the installation's, not the sender's, and is left out. */
export function withoutChainHeader(headers: Record<string, string>): Record<string, string> {
  const { [CHAIN_HEADER]: _chain, ...kept } = headers;
  return kept;
}
