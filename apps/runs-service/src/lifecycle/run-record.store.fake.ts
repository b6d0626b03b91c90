import { Transaction } from '@aas/platform';
import { RunEntity } from '../database/run.entity';
import { ChangeResult, OutboxWrite, PendingEnd, RunChange, RunEndLine, RunRecordStore } from './run-record.store';
import { fromStoredChange, toStoredChange } from './stored-change';

/** The runs, their events, their ends kept aside and the outbox in memory, for unit tests. Not built into the app (tsconfig.app.json). */
export class FakeRunRecordStore extends RunRecordStore {
  readonly runs = new Map<string, RunEntity>();
  readonly events: Array<{ runId: string; index: number; at: Date; body: Record<string, unknown> }> = [];
  readonly outbox: OutboxWrite[] = [];
  readonly ends = new Map<string, { change: object; since: Date; retryAt: Date }>();

  constructor(runs: RunEntity[] = []) {
    super();
    for (const run of runs) this.runs.set(run.id, { ...run });
  }

  async find(runId: string): Promise<RunEntity | null> {
    const run = this.runs.get(runId);
    return run ? { ...run } : null;
  }

  async change<T extends RunChange>(_tx: Transaction, runId: string, decide: (run: RunEntity | null) => Promise<T | undefined> | T | undefined, leaseUntil: Date): Promise<ChangeResult<T> | undefined> {
    const run = this.runs.get(runId);
    if (run && !run.isFinished && this.ends.has(runId)) return { pending: true };
    const change = await decide(run ? { ...run } : null);
    if (!change) return undefined;
    if (change.run.isFinished) {
      this.ends.set(runId, { change: JSON.parse(JSON.stringify(toStoredChange(change))), since: new Date(), retryAt: leaseUntil });
      return { aside: change };
    }
    this.write(change, {});
    return { written: change };
  }

  async pendingEnd(runId: string): Promise<PendingEnd | undefined> {
    const end = this.ends.get(runId);
    return end && { change: fromStoredChange(end.change), since: end.since };
  }

  async lastLine(runId: string, type: RunEndLine, field: string): Promise<{ index: number; body: Record<string, unknown> } | undefined> {
    const last = this.events.filter((e) => e.runId === runId && typeof (e.body[type] as Record<string, unknown> | undefined)?.[field] === 'string').at(-1);
    return last && { index: last.index, body: last.body };
  }

  async commitEnd(_tx: Transaction, runId: string, payloadExtra: object): Promise<RunChange | undefined> {
    const end = this.ends.get(runId);
    this.ends.delete(runId);
    const run = this.runs.get(runId);
    if (!end || !run || run.isFinished) return undefined;
    const change = fromStoredChange(end.change);
    this.write(change, payloadExtra);
    return change;
  }

  async postponeEnd(runId: string, until: Date): Promise<void> {
    const end = this.ends.get(runId);
    if (end) end.retryAt = until;
  }

  async claimDueEnds(limit: number, until: Date): Promise<string[]> {
    const due = [...this.ends.entries()].filter(([, end]) => end.retryAt.getTime() <= Date.now()).slice(0, limit);
    for (const [, end] of due) end.retryAt = until;
    return due.map(([runId]) => runId);
  }

  /** The outbox events of one name, in order. */
  outboxOf(event: string): object[] {
    return this.outbox.filter((write) => write.event === event).map((write) => write.payload);
  }

  private write(change: RunChange, payloadExtra: object): void {
    this.events.push({ runId: change.run.id, index: change.event.index, at: change.event.at, body: change.event.body });
    this.runs.set(change.run.id, { ...change.run });
    this.outbox.push(...change.outbox.map((w) => ({ event: w.event, payload: { ...w.payload, ...payloadExtra } })));
  }
}
