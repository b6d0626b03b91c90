import { RunMode } from '@aas/contracts';
import { DomainError } from '@aas/problem-details';
import { RunTrigger } from './run-trigger';

/** One run to accept, from whichever source starts it (the API, a schedule's fire, a trigger). */
export interface RunStartRequest {
  userId: string;
  agentId: string;
  /** Already in its source's namespace (idempotency-keys.ts); null: always a new run. */
  idempotencyKey: string | null;
  runMode: RunMode;
  goal: string | null;
  trigger: RunTrigger;
  /** The API's skip_deploy_check: a run of an agent that is not deployed. */
  skipDeployCheck: boolean;
  /**
   * The fire time the run stands for (with an idempotency key): kept on the run as scheduled_for, at
   * most one run per agent and fire time, also after the key is purged; new runs of one agent in one
   * batch are numbered in this order.
   */
  dueAt?: Date;
  /** A schedule's fire: the generation of the agent whose schedule fired; another generation's agent is refused (404). */
  agentGeneration?: number;
  /** A replay: the run it replays, and the instructions version it runs (null: the agent's current ones). */
  replay?: RunReplay;
}

export interface RunReplay {
  of: string;
  pinnedInstructionsVersionId: number | null;
}

/**
 * The request's run (`created` false when its idempotency key already had one:
 * that run is answered, even if it was deleted since), or why it was refused.
 */
export type RunStartOutcome = { runId: string; created: boolean } | { refusal: DomainError };
