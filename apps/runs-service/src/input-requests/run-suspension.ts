import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { RunContinuation, RuntimeLine } from '@aas/contracts';
import { RunsEnv } from '../config/runs.env';
import { RunEntity } from '../database/run.entity';
import { RunLifecycle } from '../lifecycle/run-lifecycle.service';
import { AskedInputRequest, fail, suspend } from '../lifecycle/run-transition';
import { InputRequestStore } from './input-request.store';
import { readSuspendingLine, suspendingEvent } from './suspending-line';

/**
 * A run's side of waiting for a person (docs/input-requests.md): a suspending line asks a request and
 * takes the run out of execution; once answered, its continuation (claimed once) carries the answer.
 */
@Injectable()
export class RunSuspension {
  constructor(
    private readonly store: InputRequestStore,
    private readonly lifecycle: RunLifecycle,
    private readonly config: ConfigService<RunsEnv, true>,
  ) {}

  /** Records the question and suspends the run, or ends it in error (a malformed line, the user's pending quota). */
  async suspend(run: RunEntity, line: RuntimeLine, deadline: number): Promise<void> {
    const read = readSuspendingLine(line);
    if ('refusal' in read) {
      await this.lifecycle.record(run.id, (state) => fail(state, `the runtime sent a waiting_for_input line that breaks the protocol: ${read.refusal}`));
      return;
    }
    const quota = this.config.get('QUOTA_PENDING_INPUT_REQUESTS_PER_USER', { infer: true });
    if (quota > 0 && (await this.store.pendingCount(run.userId, quota)) >= quota) {
      const reason = `its user already has ${quota} input requests pending (QUOTA_PENDING_INPUT_REQUESTS_PER_USER)`;
      await this.lifecycle.record(run.id, (state) => fail(state, reason));
      return;
    }
    const now = Date.now();
    const { timeoutMs, ...question } = read.value;
    const asked: AskedInputRequest = {
      ...question,
      id: randomUUID(),
      timeLeftMs: Math.max(0, deadline - now),
      pauseAt: new Date(now + this.config.get('RUN_PAUSE_AFTER_MS', { infer: true })),
      timeoutAt: new Date(now + timeoutMs),
    };
    await this.lifecycle.recordForAdmission(run.id, run.userId, (state) => suspend(state, suspendingEvent(line, asked.id), asked));
  }

  /** The answered request whose continuation this worker dispatches (one worker gets it), with the time the run has left. */
  async claimContinuation(runId: string): Promise<{ continuation: RunContinuation; timeLeftMs: number } | undefined> {
    const row = await this.store.claimContinuation(runId);
    if (!row) return undefined;
    return {
      continuation: {
        input_id: row.inputId,
        answer: row.answer === null ? null : JSON.parse(row.answer),
        answered_by: row.answeredBy!,
        answered_at: row.answeredAt!.toISOString(),
        state: JSON.parse(row.state),
      },
      timeLeftMs: row.timeLeftMs,
    };
  }
}
