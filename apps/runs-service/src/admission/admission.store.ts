import { RunQueuedEvent } from '@aas/contracts';
import { AdmissionLimits } from './admission-limits';
import { Transaction } from '@aas/platform';

/** `wait`: for the user's admission lock; `skip-if-busy`: another transaction is admitting that user's runs, so this one need not. */
export type AdmissionLockMode = 'wait' | 'skip-if-busy';

/** A waiting run just admitted, with how many runs its user had executing before the admission. */
export interface PickedRun {
  runId: string;
  startedAt: Date;
  runNumber: number;
  executingBefore: number;
}

/**
 * Every statement of admission (postgres-admission.store.ts); an abstract class, so that it is the
 * injection token and a fake can stand in for it.
 */
export abstract class AdmissionStore {
  /**
   * The user's admission lock, held until `tx` ends: admissions of one user, on any replica, take
   * turns. `skip-if-busy` answers false at once when another transaction holds it.
   */
  abstract lockUser(tx: Transaction, userId: string, mode: AdmissionLockMode): Promise<boolean>;

  /**
   * Marks admitted the user's oldest waiting runs that fit under both limits (each agent's oldest first,
   * at most the agent's room each, then the oldest of those up to the user's room); rows another
   * transaction holds are skipped. Taken after lockUser, so its count sees every admission before it.
   */
  abstract admitWaiting(tx: Transaction, userId: string, limits: AdmissionLimits): Promise<PickedRun[]>;

  /**
   * Each user's runs waiting for admission, counted up to `max` (runs_waiting_idx, so at most `max`
   * index entries a user). Taken after lockUser, so it sees every acceptance committed before.
   */
  abstract countWaiting(tx: Transaction, userIds: string[], max: number): Promise<Map<string, number>>;

  /** `run.queued` in the outbox: published if and only if `tx` commits. */
  abstract recordQueued(tx: Transaction, events: RunQueuedEvent[]): Promise<void>;

  /** The users with waiting runs and room under the per-user limit (per-agent room is left to admitWaiting). */
  abstract usersToAdmit(limits: AdmissionLimits): Promise<string[]>;
}
