import { AdmissionLimits } from './admission-limits';
import { AdmissionLockMode, AdmissionStore } from './admission.store';
import { jobPriority } from './job-priority';
import { Transaction } from '@aas/platform';

/** A run admitted for execution, with the BullMQ priority its job gets. */
export interface AdmittedRun {
  runId: string;
  priority: number;
}

/**
 * Admits the user's oldest waiting runs that fit under the limits, inside `tx`, and queues each for a
 * worker (`run.queued` through the outbox: published if and only if `tx` commits), oldest first, each
 * job's priority after the user's executing runs before it. Answers null when `skip-if-busy` finds
 * another transaction admitting this user's runs.
 */
export async function admitUser(
  store: AdmissionStore,
  tx: Transaction,
  userId: string,
  limits: AdmissionLimits,
  lockMode: AdmissionLockMode = 'wait',
): Promise<AdmittedRun[] | null> {
  if (!(await store.lockUser(tx, userId, lockMode))) return null;
  const picked = await store.admitWaiting(tx, userId, limits);
  const oldestFirst = [...picked].sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.runNumber - b.runNumber);
  const admitted = oldestFirst.map((run, i) => ({ runId: run.runId, priority: jobPriority(run.executingBefore + i) }));
  await store.recordQueued(
    tx,
    admitted.map((run) => ({ run_id: run.runId, priority: run.priority })),
  );
  return admitted;
}
