import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { InputRequestClosedError } from '../lifecycle/run-record.store';
import { ClosedInputRequest, answer, fail, pauseWaiting } from '../lifecycle/run-transition';
import { InputRequestRow, InputRequestStore } from './input-request.store';
import { fallbackAnswer } from './suspending-line';

/** How often every replica looks for input requests past their pause time or their timeout. */
export const INPUT_REQUEST_SWEEP_MS = 1000;
const BATCH = 50;

/**
 * What happens to a question nobody answers, from whichever replica sees it first: past
 * RUN_PAUSE_AFTER_MS its run becomes paused (run.paused); past its timeout its fallback (fail,
 * approve, reject, a default answer) closes it. Each exactly once, and never after an answer:
 * each is a conditional write on the request (still pending) in the change on the locked run row,
 * which a person's answer races on equal terms.
 */
@Injectable()
export class InputRequestSweep implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(InputRequestSweep.name);
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly store: InputRequestStore,
    private readonly lifecycle: RunLifecycle,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.sweep(), INPUT_REQUEST_SWEEP_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  private sweep(): void {
    if (this.sweeping) return;
    this.sweeping = this.once()
      .catch((error: Error) => this.logger.warn(`input request sweep: ${error.message}; retrying in ${INPUT_REQUEST_SWEEP_MS} ms`))
      .finally(() => (this.sweeping = undefined));
  }

  private async once(): Promise<void> {
    for (const { id, runId } of await this.store.duePauses(BATCH)) {
      await this.lifecycle.record(runId, (state) => pauseWaiting(state, id)).catch(ignoreClosed);
    }
    for (const row of await this.store.dueTimeouts(BATCH)) await this.fallBack(row).catch(ignoreClosed);
  }

  /** The request's on_timeout: `fail` ends the run in error; the others answer for the person. */
  private async fallBack(row: InputRequestRow): Promise<void> {
    const given = fallbackAnswer(row.onTimeout);
    const closed: ClosedInputRequest = { id: row.id, status: 'timed_out', answer: given === null ? null : JSON.stringify(given), answeredBy: { kind: 'timeout' } };
    const event = { input_timed_out: { request_id: row.id, input_id: row.inputId, action: row.onTimeout.action, answer: given } };
    if (row.onTimeout.action === 'fail') {
      const reason = `input request ${row.id} timed out without an answer (on_timeout fail)`;
      await this.lifecycle.record(row.runId, (state) => ({ ...fail(state, reason), inputRequest: { closed } }));
      return;
    }
    await this.lifecycle.recordForAdmission(row.runId, row.userId, (state) => answer(state, event, closed));
  }
}

/** Another replica (or a person) closed it first: that is the one close, not a failure. */
function ignoreClosed(error: unknown): void {
  if (!(error instanceof InputRequestClosedError)) throw error;
}
