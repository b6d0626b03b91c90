import { Injectable } from '@nestjs/common';
import { Transaction, afterCommit } from '@aas/platform';
import { RunAdmission } from '../admission/run-admission.service';
import { CancelSignals } from './cancel-signals';
import { RunEnds } from './run-ends';
import { RunEventChannel } from './run-event-channel';
import { RecordResult, RunRecorder } from './run-recorder';
import { RunState, RunTransition, stop } from './run-transition';

/**
 * The one entry for every change of a run's state (README.md): execution's lines, a cancel, the
 * admission of accepted runs, runs removed with their agent, a run deleted. Each change is a unit of
 * work that carries what follows it (signals, pushes, the admission of the next run), run only once
 * it commits, so no caller has to remember them.
 */
@Injectable()
export class RunLifecycle {
  constructor(
    private readonly recorder: RunRecorder,
    private readonly cancels: CancelSignals,
    private readonly channel: RunEventChannel,
    private readonly admission: RunAdmission,
    private readonly ends: RunEnds,
  ) {}

  /** Takes one edge of the state machine (run-transition.ts) on the run; an end settles once it is visible. */
  record(runId: string, makeTransition: (state: RunState) => RunTransition): Promise<RecordResult> {
    return this.recorder.apply(runId, makeTransition);
  }

  /**
   * An edge that changes what admission counts (a run suspended on an input request frees its slot; an
   * answered one waits for it again): once committed, the user's admission is kicked.
   */
  recordForAdmission(runId: string, userId: string, makeTransition: (state: RunState) => RunTransition): Promise<RecordResult> {
    return this.recorder.apply(runId, makeTransition, () => this.admission.kick(userId));
  }

  /** Stops the run; once that is committed, the worker executing it (on any replica) aborts its runtime request. */
  stop(runId: string, reason: string | null): Promise<RecordResult> {
    return this.recorder.apply(runId, (state) => stop(state, reason), () => this.cancels.signal(runId));
  }

  /**
   * Inside the unit of work that accepted runs of these users: admits what fits under their limits, the
   * new runs included (admission/), and answers how many were queued.
   */
  async admitIn(tx: Transaction, userIds: string[]): Promise<number> {
    return (await this.admission.admitIn(tx, userIds)).length;
  }

  /** Inside the unit of work that accepts runs: the users' runs waiting for admission, up to `max`, under their admission locks. */
  waitingIn(tx: Transaction, userIds: string[], max: number): Promise<Map<string, number>> {
    return this.admission.countWaitingIn(tx, userIds, max);
  }

  /**
   * Inside the unit of work that deleted unfinished runs (their agent deleted, or its id taken by a new
   * agent): once it commits, their workers stop and the users' room goes to their waiting runs.
   */
  removedIn(tx: Transaction, runIds: string[], userIds: string[]): void {
    if (runIds.length === 0) return;
    afterCommit(tx, async () => {
      for (const runId of runIds) await this.cancels.signal(runId);
      for (const userId of new Set(userIds)) this.admission.kick(userId);
    });
  }

  /** Inside the unit of work that deleted a finished run: once it commits, its open event streams end. */
  deletedIn(tx: Transaction, runId: string): void {
    afterCommit(tx, () => this.channel.gone(runId));
  }

  /** The executing worker's abort, for a cancel signal from any replica; answers its release. */
  watch(runId: string, controller: AbortController): () => void {
    return this.cancels.register(runId, controller);
  }

  /**
   * Shutdown past its drain deadline: the runs this process executes are aborted (`reason`), and their
   * ends wait for their effects only briefly before they are left to another replica (RunEnds.hurry).
   */
  abortAll(reason: string): void {
    this.ends.hurry();
    this.cancels.abortAll(reason);
  }
}
