import { RunQueuedEvent } from '@aas/contracts';
import { AdmissionLimits } from './admission-limits';
import { AdmissionLockMode, AdmissionStore, PickedRun } from './admission.store';
import { Transaction } from '@aas/platform';

/** A run as admission sees it. */
export interface AdmissionRow {
  id: string;
  userId: string;
  agentId: string;
  startedAt: Date;
  runNumber: number;
  admitted: boolean;
  finished: boolean;
  /** Suspended on an input request: neither waiting nor executing. */
  awaitingInput?: boolean;
}

/**
 * The runs' admission columns and the `run.queued` outbox in memory, for unit tests, with the choice of
 * postgres-admission.store.ts (each agent's oldest waiting runs up to its room, then the oldest of those
 * up to the user's room). `busy` users' locks are held elsewhere. Not built into the app (tsconfig.app.json).
 */
export class FakeAdmissionStore extends AdmissionStore {
  readonly rows: AdmissionRow[] = [];
  readonly queued: RunQueuedEvent[] = [];
  readonly busy = new Set<string>();
  /** The users whose lock was taken, in order. */
  readonly locked: string[] = [];

  async lockUser(_tx: Transaction, userId: string, mode: AdmissionLockMode): Promise<boolean> {
    if (this.busy.has(userId) && mode === 'skip-if-busy') return false;
    this.locked.push(userId);
    return true;
  }

  async admitWaiting(_tx: Transaction, userId: string, limits: AdmissionLimits): Promise<PickedRun[]> {
    const mine = this.rows.filter((r) => r.userId === userId && !r.finished);
    const executing = mine.filter((r) => r.admitted && !r.awaitingInput);
    const byAge = (a: AdmissionRow, b: AdmissionRow) => a.startedAt.getTime() - b.startedAt.getTime() || a.runNumber - b.runNumber;
    const candidates = [...new Set(mine.filter((r) => !r.admitted).map((r) => r.agentId))].flatMap((agentId) => {
      const room = limits.perAgent === null ? Infinity : Math.max(limits.perAgent - executing.filter((r) => r.agentId === agentId).length, 0);
      return mine.filter((r) => !r.admitted && r.agentId === agentId).sort(byAge).slice(0, room);
    });
    const userRoom = limits.perUser === null ? Infinity : Math.max(limits.perUser - executing.length, 0);
    const picked = candidates.sort(byAge).slice(0, userRoom);
    for (const row of picked) row.admitted = true;
    return picked.map((r) => ({ runId: r.id, startedAt: r.startedAt, runNumber: r.runNumber, executingBefore: executing.length }));
  }

  async countWaiting(_tx: Transaction, userIds: string[], max: number): Promise<Map<string, number>> {
    const waiting = (userId: string) => this.rows.filter((r) => r.userId === userId && !r.admitted && !r.finished).length;
    return new Map(userIds.map((userId) => [userId, Math.min(waiting(userId), max)]));
  }

  async recordQueued(_tx: Transaction, events: RunQueuedEvent[]): Promise<void> {
    this.queued.push(...events);
  }

  async usersToAdmit(limits: AdmissionLimits): Promise<string[]> {
    const waiting = [...new Set(this.rows.filter((r) => !r.admitted && !r.finished).map((r) => r.userId))].sort();
    const executing = (userId: string) => this.rows.filter((r) => r.userId === userId && r.admitted && !r.awaitingInput && !r.finished).length;
    return waiting.filter((userId) => limits.perUser === null || executing(userId) < limits.perUser);
  }
}
