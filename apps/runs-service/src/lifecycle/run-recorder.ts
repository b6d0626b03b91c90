import { Injectable, Optional } from '@nestjs/common';
import { AfterCommitEffect, Transaction, Transactions, afterCommit, retryUncommitted } from '@aas/platform';
import { BudgetGuard } from '../budgets/budget-guard';
import { crossingReason } from '../budgets/budget-limits';
import { RunEntity } from '../database/run.entity';
import { RunEventChannel } from './run-event-channel';
import { RunEnds } from './run-ends';
import { changeFor, stateOf } from './run-change';
import { RunChange, RunRecordStore } from './run-record.store';
import { RunState, RunTransition, fail } from './run-transition';

/** `ignored`: the run was already finished (or its end decided); `finished`: this change finished it; `recorded`: it runs on. */
export type RecordResult = 'ignored' | 'recorded' | 'finished';

/**
 * Records run events and state changes, each with its lifecycle and progress events, in one unit of
 * work on the locked run row (RunRecordStore). A change that finishes the run is kept aside and made
 * visible by RunEnds once its effects on other services are committed; `apply` settles then. Once a
 * run's end is decided nothing more is recorded: lines that arrive after a cancel are ignored, and a
 * second end (a cancel racing the runtime's last line) waits for the first.
 */
@Injectable()
export class RunRecorder {
  constructor(
    private readonly store: RunRecordStore,
    private readonly transactions: Transactions,
    private readonly channel: RunEventChannel,
    private readonly ends: RunEnds,
    // Absent in unit tests on fakes: no spend is counted there.
    @Optional() private readonly budgets?: BudgetGuard,
  ) {}

  /** `onRecorded` runs once the change (or the end kept aside) has committed; not when nothing was recorded. */
  async apply(runId: string, makeTransition: (state: RunState) => RunTransition, onRecorded?: AfterCommitEffect): Promise<RecordResult> {
    // A burst of runs ending at once can hold every pooled connection past the connect timeout: the
    // change waits and is tried again rather than failing the run (retryUncommitted: only what wrote nothing).
    const result = await retryUncommitted(() =>
      this.transactions.run(async (tx) => {
        const decide = async (run: RunEntity | null) =>
          !run || run.isFinished ? undefined : changeFor(run, await this.charged(tx, run, makeTransition(stateOf(run))), new Date());
        const result = await this.store.change(tx, runId, decide, this.ends.leaseUntil());
        if (result && 'written' in result) afterCommit(tx, () => this.push(result.written));
        if (result && !('pending' in result) && onRecorded) afterCommit(tx, onRecorded);
        return result;
      }),
    );
    if (!result) return 'ignored';
    if ('written' in result) return 'recorded';
    await this.ends.finish(runId);
    return 'aside' in result ? 'finished' : 'ignored';
  }

  /**
   * A usage line's credits count toward its agent's and user's spend in the same unit of work; one that
   * crosses a budget ends the run in error instead, its usage still recorded and the budget named
   * (docs/budgets.md). The executor then sees the run finished and aborts the runtime's stream.
   */
  private async charged(tx: Transaction, run: RunEntity, t: RunTransition): Promise<RunTransition> {
    if (!t.usage || !this.budgets) return t;
    const crossed = await this.budgets.charge(tx, { userId: run.userId, agentId: run.agentId }, t.usage.costMillionths);
    if (!crossed) return t;
    const reason = crossingReason(crossed);
    return { ...fail(stateOf(run), reason), usage: t.usage, summary: reason };
  }

  /** To the gateways streaming the run, once committed: a stream never shows what could still roll back. */
  private push({ run, event }: RunChange): void {
    this.channel.recorded(run.id, { event_index: event.index, recorded_at: event.at.toISOString(), event: event.body }, run.isFinished);
  }
}
