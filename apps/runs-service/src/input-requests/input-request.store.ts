import { InputAnswerer, InputRequestStatus } from '@aas/contracts';
import { AskedInputRequest } from '../lifecycle/run-transition';

/** A row of input_requests (what its run asked, lifecycle's AskedInputRequest), with its run's owner and agent generation, and its answer. */
export interface InputRequestRow extends Omit<AskedInputRequest, 'pauseAt'> {
  runId: string;
  userId: string;
  agentId: string;
  agentGeneration: number | null;
  status: InputRequestStatus;
  createdAt: Date;
  answer: string | null;
  answeredAt: Date | null;
  answeredBy: InputAnswerer | null;
}

export interface RunOwner {
  userId: string;
  agentId: string;
  agentGeneration: number | null;
}

/** An agent and the generation its runs carry (null-generation runs are older than generations). */
export interface AgentOfRuns {
  agentId: string;
  generation: number;
}

/**
 * The statements on input_requests outside a run's change (postgres-input-request.store.ts): asking and
 * closing go with the run's edge (lifecycle/). An abstract class, so that it is the injection token.
 */
export abstract class InputRequestStore {
  /** The user's pending requests, counted up to `max`. */
  abstract pendingCount(userId: string, max: number): Promise<number>;

  abstract find(requestId: string): Promise<InputRequestRow | undefined>;

  /** Whose the run is: for a run's list, a 404 for a run that is not the caller's. */
  abstract runOwner(runId: string): Promise<RunOwner | undefined>;

  /** A run's requests, oldest first, at most `limit`. */
  abstract listForRun(runId: string, limit: number): Promise<InputRequestRow[]>;

  /** The user's requests of these agents (each of its generation), oldest first, at most `limit`. */
  abstract listForUser(userId: string, agents: AgentOfRuns[], status: InputRequestStatus | undefined, limit: number): Promise<InputRequestRow[]>;

  /**
   * The run's closed request whose continuation is not yet dispatched, marked dispatched in the same
   * statement: of two workers, one gets it. Undefined when there is none.
   */
  abstract claimContinuation(runId: string): Promise<InputRequestRow | undefined>;

  /** Pending requests past their pause time, not yet paused (pausing them is a conditional write with the run's change). */
  abstract duePauses(limit: number): Promise<Array<{ id: string; runId: string }>>;

  /** Pending requests past their timeout (closing them is what makes a fallback happen once). */
  abstract dueTimeouts(limit: number): Promise<InputRequestRow[]>;
}
