import { Injectable } from '@nestjs/common';
import { BulkActionChunkEvent } from '@aas/contracts';
import { DomainError } from '@aas/problem-details';
import { bulkActionRunKey } from '../acceptance/idempotency-keys';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { RunStarts } from '../runs/run-starts.service';
import { BulkActionRow, BulkRunOutcome, PendingBulkRun } from './bulk-action-row';
import { BulkActionStore } from './bulk-action.store';

/**
 * Runs of a chunk handled together: a cancel waits for its run's end effects (requests to agents-service
 * and scheduler-service), so one at a time a 1,000-run action took minutes; replays together share a
 * group commit. An abort is seen between such slices.
 */
export const RUNS_AT_ONCE = 10;

/**
 * One chunk of a bulk action: its next runs, RUNS_AT_ONCE at a time, each result recorded with its count; then
 * the next chunk goes to the back of the queue, behind other actions' chunks (fair across actions).
 * An abort is seen between slices of RUNS_AT_ONCE runs. A chunk taken up again after a crash redoes only runs without a
 * result, and their effects are idempotent: a cancel of a stopped run changes nothing, and a replay
 * is keyed per action and run (bulkActionRunKey), so it answers the replay it already started.
 */
@Injectable()
export class BulkActionRunner {
  constructor(
    private readonly store: BulkActionStore,
    private readonly lifecycle: RunLifecycle,
    private readonly starts: RunStarts,
  ) {}

  /** Answers how many runs this chunk reached. */
  async runChunk(event: BulkActionChunkEvent, size: number, stopping: () => boolean): Promise<number> {
    const claim = await this.store.claimChunk(event.bulk_action_id, event.chunk, size);
    if (!claim) return 0;
    let reached = 0;
    for (let i = 0; i < claim.runs.length; i += RUNS_AT_ONCE) {
      if (stopping() || !(await this.store.isActive(claim.row.id))) break;
      const slice = claim.runs.slice(i, i + RUNS_AT_ONCE);
      await Promise.all(slice.map(async (run) => this.store.record(claim.row.id, run, await this.apply(claim.row, run))));
      reached += slice.length;
    }
    await this.store.finishChunk(claim.row.id, event.chunk);
    return reached;
  }

  /** A refusal (a DomainError: a quota, a run gone) is this run's failure; anything else (an outage) fails the job, to be tried again. */
  private async apply(action: BulkActionRow, run: PendingBulkRun): Promise<BulkRunOutcome> {
    try {
      return action.action === 'cancel' ? await this.cancel(action, run) : await this.replay(action, run);
    } catch (error) {
      if (error instanceof DomainError) return { result: 'failed', detail: error.message };
      throw error;
    }
  }

  /** The run's stopped event carries the reason, naming the action: the run records that it touched it. */
  private async cancel(action: BulkActionRow, run: PendingBulkRun): Promise<BulkRunOutcome> {
    const result = await this.lifecycle.stop(run.run_id, `Cancelled by bulk action ${action.id}`);
    return result === 'ignored' ? { result: 'skipped', detail: 'The run had already finished (or was deleted)' } : { result: 'done', resultRunId: null };
  }

  private async replay(action: BulkActionRow, run: PendingBulkRun): Promise<BulkRunOutcome> {
    const replayed = await this.starts.replayForBulkAction(
      { user_id: action.user_id, agent_id: run.agent_id, run_id: run.run_id, instructions: action.instructions ?? 'original' },
      bulkActionRunKey(action.id, run.run_id),
    );
    return { result: 'done', resultRunId: replayed.run_id };
  }
}
