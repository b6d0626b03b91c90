import { RunEntity } from '../database/run.entity';

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
}

/**
 * Every statement of recording a run's events (postgres-run-record.store.ts); an abstract class, so
 * that it is the injection token and a fake can stand in for it.
 */
export abstract class RunRecordStore {
  abstract find(runId: string): Promise<RunEntity | null>;

  /**
   * In one transaction on the locked run row: asks `decide` what to record given the run (null: no
   * such run) and writes it, the event, the run's columns and the outbox events together. Nothing is
   * written when `decide` answers undefined. Answers what was decided.
   */
  abstract change<T extends RunChange>(runId: string, decide: (run: RunEntity | null) => T | undefined): Promise<T | undefined>;
}
