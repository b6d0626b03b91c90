import { Injectable } from '@nestjs/common';
import { METRIC_PREFIX } from '@aas/platform';
import { Counter, Registry } from 'prom-client';

/**
 * What became of an event trigger's start: a new run, refused by runs-service (agent gone, not deployed, the
 * owner's waiting runs), past the depth limit, past the chain's run limit, or past the owner's allowance.
 */
export type TriggerStartOutcome = 'started' | 'refused' | 'refused_depth' | 'refused_chain' | 'refused_allowance';

@Injectable()
export class TriggerMetrics {
  private readonly starts: Counter<'outcome'>;
  private readonly cuts: Counter<'reason'>;

  constructor(registry: Registry) {
    this.starts = new Counter({
      name: `${METRIC_PREFIX}event_trigger_starts_total`,
      help: 'Runs event triggers asked for, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of ['started', 'refused', 'refused_depth', 'refused_chain', 'refused_allowance'] as const) this.starts.inc({ outcome }, 0);
    this.cuts = new Counter({
      name: `${METRIC_PREFIX}trigger_message_cuts_total`,
      help: 'Messages of inbound calls whose rendering stopped early: at the longest user_message (length), after the step budget (steps), or at once for a stored template that breaks a rule made since (rules)',
      labelNames: ['reason'],
      registers: [registry],
    });
    for (const reason of ['length', 'steps', 'rules'] as const) this.cuts.inc({ reason }, 0);
  }

  messageCut(reason: 'length' | 'steps' | 'rules'): void {
    this.cuts.inc({ reason });
  }

  count(outcome: TriggerStartOutcome, starts = 1): void {
    if (starts > 0) this.starts.inc({ outcome }, starts);
  }
}
