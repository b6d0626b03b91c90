import { Transaction } from '@aas/platform';
import { ClaimOutcome, GenerationClaim } from '../database/agent-generations';
import { RunEventEntity } from '../database/run-event.entity';
import { RunEntity } from '../database/run.entity';
import { FakeRunRecordStore } from '../lifecycle/run-record.store.fake';
import { RunStore } from './run.store';

/**
 * Runs, their events and the agent generations in memory, for unit tests: the runs and events of a
 * FakeRunRecordStore, so that what the recorder writes is what this one reads. Not built into the app
 * (tsconfig.app.json).
 */
export class FakeRunStore extends RunStore {
  readonly generations = new Map<string, number>();

  constructor(readonly records = new FakeRunRecordStore()) {
    super();
  }

  private get runs(): Map<string, RunEntity> {
    return this.records.runs;
  }

  async findById(runId: string): Promise<RunEntity | null> {
    const run = this.runs.get(runId);
    return run ? { ...run } : null;
  }

  async findOwned(runId: string, agentId: string, userId: string): Promise<RunEntity | null> {
    const run = this.runs.get(runId);
    return run && run.agentId === agentId && run.userId === userId ? { ...run } : null;
  }

  async findByIds(runIds: string[]): Promise<RunEntity[]> {
    return runIds.flatMap((id) => (this.runs.has(id) ? [{ ...this.runs.get(id)! }] : []));
  }

  async events(runId: string, afterIndex: number | undefined, limit: number): Promise<RunEventEntity[]> {
    return this.records.events
      .filter((e) => e.runId === runId && (afterIndex === undefined || e.index > afterIndex))
      .sort((a, b) => a.index - b.index)
      .slice(0, limit)
      .map((e) => Object.assign(new RunEventEntity(), { runId, eventIndex: String(e.index), recordedAt: e.at, event: e.body }));
  }

  async delete(_tx: Transaction, runId: string): Promise<void> {
    this.runs.delete(runId);
    const events = this.records.events;
    events.splice(0, events.length, ...events.filter((e) => e.runId !== runId));
  }

  async heldGeneration(agentId: string): Promise<number | undefined> {
    return this.generations.get(agentId);
  }

  /** As database/agent-generations.ts: a newer generation deletes the older one's runs and stops its unfinished ones. */
  async claimGeneration(tx: Transaction, claim: GenerationClaim): Promise<ClaimOutcome> {
    const held = this.generations.get(claim.agentId);
    if (held !== undefined && held > claim.generation) return { refused: new Set([claim.agentId]), stopped: [] };
    const stopped: string[] = [];
    if (held !== undefined && held < claim.generation) {
      for (const run of [...this.runs.values()].filter((r) => r.agentId === claim.agentId)) {
        if (!run.isFinished) stopped.push(run.id);
        await this.delete(tx, run.id);
      }
    }
    this.generations.set(claim.agentId, claim.generation);
    return { refused: new Set(), stopped };
  }
}
