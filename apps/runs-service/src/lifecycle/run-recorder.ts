import { Injectable } from '@nestjs/common';
import { RunEventItem } from '@aas/contracts';
import { OutboxRelay } from '@aas/platform';
import { RunEventChannel } from './run-event-channel';
import { RunEnds } from './run-ends';
import { changeFor, stateOf } from './run-change';
import { RunRecordStore } from './run-record.store';
import { RunState, RunTransition } from './run-transition';

/** `ignored`: the run was already finished (or its end decided); `finished`: this change finished it; `recorded`: it runs on. */
export type RecordResult = 'ignored' | 'recorded' | 'finished';

/**
 * Records run events and state changes, each with its lifecycle and progress events, in one
 * transaction on the locked run row (RunRecordStore). A change that finishes the run is kept aside
 * and made visible by RunEnds once its effects on other services are committed; `apply` settles
 * then. Once a run's end is decided nothing more is recorded: lines that arrive after a cancel are
 * ignored, and a second end (a cancel racing the runtime's last line) waits for the first.
 */
@Injectable()
export class RunRecorder {
  constructor(
    private readonly store: RunRecordStore,
    private readonly outbox: OutboxRelay,
    private readonly channel: RunEventChannel,
    private readonly ends: RunEnds,
  ) {}

  async apply(runId: string, makeTransition: (state: RunState) => RunTransition): Promise<RecordResult> {
    const result = await this.store.change(
      runId,
      (run) => (!run || run.isFinished ? undefined : changeFor(run, makeTransition(stateOf(run)), new Date())),
      this.ends.leaseUntil(),
    );
    if (!result) return 'ignored';
    if ('pending' in result) {
      await this.ends.finish(runId);
      return 'ignored';
    }
    if ('aside' in result) {
      await this.ends.finish(runId);
      return 'finished';
    }
    const { run, event } = result.written;
    const item: RunEventItem = { event_index: event.index, recorded_at: event.at.toISOString(), event: event.body };
    this.channel.recorded(runId, item, run.isFinished);
    this.outbox.kick();
    return 'recorded';
  }
}
