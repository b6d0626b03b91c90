import { RunEntity } from '../database/run.entity';
import { OutboxWrite, RunChange, RunRecordStore } from './run-record.store';

/** The runs, their events and the outbox in memory, for unit tests. Not built into the app (tsconfig.app.json). */
export class FakeRunRecordStore extends RunRecordStore {
  readonly runs = new Map<string, RunEntity>();
  readonly events: Array<{ runId: string; index: number; at: Date; body: Record<string, unknown> }> = [];
  readonly outbox: OutboxWrite[] = [];

  constructor(runs: RunEntity[] = []) {
    super();
    for (const run of runs) this.runs.set(run.id, { ...run });
  }

  async find(runId: string): Promise<RunEntity | null> {
    const run = this.runs.get(runId);
    return run ? { ...run } : null;
  }

  async change<T extends RunChange>(runId: string, decide: (run: RunEntity | null) => T | undefined): Promise<T | undefined> {
    const run = this.runs.get(runId);
    const change = decide(run ? { ...run } : null);
    if (!change) return undefined;
    this.events.push({ runId, index: change.event.index, at: change.event.at, body: change.event.body });
    this.runs.set(runId, { ...change.run });
    this.outbox.push(...change.outbox);
    return change;
  }

  /** The outbox events of one name, in order. */
  outboxOf(event: string): object[] {
    return this.outbox.filter((write) => write.event === event).map((write) => write.payload);
  }
}
