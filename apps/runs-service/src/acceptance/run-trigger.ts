import { RunKind } from '@aas/contracts';

/** What started a run: the API, a schedule (whose agent is named on the run), or a trigger. */
export interface RunTrigger {
  runKind: RunKind;
  /** How the run's input came, when not by what started it (a replay keeps its origin's); absent: runKind. */
  triggerKind?: string;
  scheduleAgentId: string | null;
  /** The webhook or event trigger that started the run. */
  triggerId?: string;
  /** Hops from the run that started the chain; 0 otherwise. */
  depth?: number;
  /** The root of the chain the run continues (counted against TRIGGER_CHAIN_MAX_RUNS); absent: it starts its own. */
  chainRootId?: string;
  /** What the runtime receives as the dispatch's `trigger` (payload, headers, source run). */
  data?: Record<string, unknown>;
  /** An event trigger's start: the run whose end fired it. */
  sourceRunId?: string;
}
