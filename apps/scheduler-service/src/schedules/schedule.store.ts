import { MisfirePolicy, OverlapPolicy, ScheduleFireEvent } from '@aas/contracts';
import { ScheduleEntity } from './schedule.entity';

export interface ScheduleValues {
  agentId: string;
  agentGeneration: number;
  userId: string;
  cron: string;
  timezone: string | null;
  overlap: OverlapPolicy;
  misfire: MisfirePolicy;
  catchUpWindowSeconds: number | null;
  nextRunAt: Date | null;
}

/** A schedule's fire that failed: runs-service refused its run, or it could not be started after its retries. */
export interface FireFailure {
  agentId: string;
  error: string;
}

/** A schedule whose expression could not be evaluated by a tick. */
export interface EvaluationError {
  agentId: string;
  error: string;
}

/** Where a tick moves a schedule: its next fire time, or null when it is finished (never selected again). */
export interface ScheduleMove {
  agentId: string;
  next: Date | null;
}

/** The statements of one tick, inside one transaction: what it records commits together or not at all. */
export interface ScheduleTickTransaction {
  /** Due schedules (not paused, next fire by `horizon`), oldest first, locked; those another replica holds are skipped. */
  lockDue(horizon: Date, limit: number): Promise<ScheduleEntity[]>;
  /** Moves each schedule to its next fire time, in one statement. */
  advance(moves: ScheduleMove[]): Promise<void>;
  /** last_error of schedules whose expression could not be evaluated. */
  recordEvaluationErrors(errors: EvaluationError[]): Promise<void>;
  /** The fires, as `schedule.fire` events in the outbox: published if and only if the tick commits. */
  recordFires(fires: ScheduleFireEvent[]): Promise<void>;
}

/**
 * Every statement on the `schedules` table (postgres-schedule.store.ts); an
 * abstract class so that it is the injection token and a fake can stand in for it.
 */
export abstract class ScheduleStore {
  abstract findOwned(userId: string, agentId: string): Promise<ScheduleEntity | null>;

  /** The user's schedules, oldest first. */
  abstract listOwned(userId: string): Promise<ScheduleEntity[]>;

  abstract findByAgents(agentIds: string[]): Promise<ScheduleEntity[]>;

  /** Sets or replaces the agent's one schedule; it starts active with a clean failure count and no error. */
  abstract upsert(values: ScheduleValues): Promise<void>;

  abstract delete(userId: string, agentId: string): Promise<void>;

  /**
   * agent.deleted: the schedule of that agent generation or an older one, never one a new agent with
   * the id has set since. An event of an earlier version (no generation) deletes the user's schedule of the agent.
   */
  abstract deleteOfAgent(agentId: string, userId: string, generation: number | undefined): Promise<void>;

  abstract pause(userId: string, agentId: string): Promise<void>;

  /** Active again from `nextRunAt` (null: finished), with auto-pause and the failure count cleared; an evaluation error is recorded. */
  abstract resume(userId: string, agentId: string, nextRunAt: Date | null, evaluationError: string | null): Promise<void>;

  /** Runs `work` in one transaction (a tick), committed when it resolves and rolled back when it rejects. */
  abstract tick<T>(work: (tx: ScheduleTickTransaction) => Promise<T>): Promise<T>;

  /**
   * One failure for each fire (fires of one schedule failing together count one each, the last error is kept);
   * `autoPauseAfter` failures in a row pause the schedule.
   */
  abstract recordFireFailures(failures: FireFailure[], autoPauseAfter: number): Promise<void>;

  /**
   * A scheduled run ended: failure adds one (reaching `autoPauseAfter` pauses), success resets, neither leaves
   * the count; the schedule forgets the run if it is the one recorded as unfinished. A run of another agent
   * generation than the schedule's changes nothing, nor does the end of the run it counted last, applied again.
   */
  abstract recordRunEnd(
    agentId: string,
    runId: string,
    verdict: 'failure' | 'success' | 'neither',
    autoPauseAfter: number,
    agentGeneration?: number | null,
  ): Promise<void>;

  /** Each schedule's newest run, for the overlap rule, in one statement. */
  abstract recordActiveRuns(started: Array<{ agentId: string; runId: string }>): Promise<void>;
}
