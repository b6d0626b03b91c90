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

  constructor(registry: Registry) {
    this.starts = new Counter({
      name: `${METRIC_PREFIX}event_trigger_starts_total`,
      help: 'Runs event triggers asked for, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    for (const outcome of ['started', 'refused', 'refused_depth', 'refused_chain', 'refused_allowance'] as const) this.starts.inc({ outcome }, 0);
  }

  count(outcome: TriggerStartOutcome, starts = 1): void {
    if (starts > 0) this.starts.inc({ outcome }, starts);
  }
}
