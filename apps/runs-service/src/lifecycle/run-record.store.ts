import { Transaction } from '@aas/platform';
import { ConflictError } from '@aas/problem-details';
import { RunEntity } from '../database/run.entity';
import { RunTransition } from './run-transition';

/** An outbox event to record with a change: published if and only if the change commits. */
export interface OutboxWrite {
  event: string;
  payload: object;
}

/** What recording one event does: the event row, the run's columns after it, and the outbox events it raises. */
export interface RunChange {
  event: { index: number; at: Date; body: Record<string, unknown> };
  run: RunEntity;
  outbox: OutboxWrite[];
  /** The input request the change asks or closes: written with it, before an end is set aside. */
  inputRequest?: RunTransition['inputRequest'];
}

/** A change closing an input request that is no longer pending (answered, timed out, void): nothing was written. */
export class InputRequestClosedError extends ConflictError {
  constructor(requestId: string) {
    super(`Input request ${requestId} is no longer pending: it was answered, timed out, or its run ended`);
  }
}

/**
 * What `change` did: `written`, a change that does not finish the run, recorded and visible; `aside`, a
 * change that finishes it, kept aside (the run still reads unfinished) until `commitEnd`; `pending`:
 * the run's end was already kept aside, so nothing was asked or written.
 */
export type ChangeResult<T extends RunChange> = { written: T } | { aside: T } | { pending: true };

/** A run's end kept aside, and when it was. */
export interface PendingEnd {
  change: RunChange;
  since: Date;
}

/**
 * Every statement of recording a run's events (postgres-run-record.store.ts); an abstract class, so
 * that it is the injection token and a fake can stand in for it.
 */
/** The lines whose last one a run's end carries to agents-service. */
export type RunEndLine = 'instructions' | 'agent_name';

export abstract class RunRecordStore {
  abstract find(runId: string): Promise<RunEntity | null>;

  /**
   * In `tx`, on the locked run row: asks `decide` what to record given the run (null: no
   * such run) and writes it, the event, the run's columns and the outbox events together; a change
   * that finishes the run is kept aside instead, its lease running to `leaseUntil`. Nothing is written
   * when `decide` answers undefined (then undefined), nor while an end is aside (then not asked).
   */
  abstract change<T extends RunChange>(tx: Transaction, runId: string, decide: (run: RunEntity | null) => Promise<T | undefined> | T | undefined, leaseUntil: Date): Promise<ChangeResult<T> | undefined>;

  /** The run's end kept aside, if any. */
  abstract pendingEnd(runId: string): Promise<PendingEnd | undefined>;

  /** The run's last line of `type` (`instructions`, `agent_name`) whose `field` is text: what the run last wrote, for its end's effects. */
  abstract lastLine(runId: string, type: RunEndLine, field: string): Promise<{ index: number; body: Record<string, unknown> } | undefined>;

  /**
   * Makes the run's end kept aside visible, in `tx`: the event, the run's columns and the
   * outbox events (each payload merged with `payloadExtra`), and the end no longer aside. Undefined
   * when there was none (another process made it visible first).
   */
  abstract commitEnd(tx: Transaction, runId: string, payloadExtra: object): Promise<RunChange | undefined>;

  /** No process takes the end over before `until` (a lease, or the next try after a failure). */
  abstract postponeEnd(runId: string, until: Date): Promise<void>;

  /** Ends aside whose lease has passed, at most `limit`, each leased to `until` for the caller. */
  abstract claimDueEnds(limit: number, until: Date): Promise<string[]>;
}
