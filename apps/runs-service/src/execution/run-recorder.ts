import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EventNames, RunEventItem, RunLifecycleEvent, RunProgressEvent } from '@aas/contracts';
import { OutboxRelay, recordEvent } from '@aas/platform';
import { DataSource, EntityManager } from 'typeorm';
import { RunAdmission } from '../admission/run-admission.service';
import { RunEntity } from '../runs/run.entity';
import { RunEventChannel } from './run-event-channel';
import { RunMetrics } from './run-metrics';
import { RunState, RunTransition } from './run-transition';

/** `ignored`: the run was already finished; `finished`: this change finished it; `recorded`: it runs on. */
export type RecordResult = 'ignored' | 'recorded' | 'finished';

/**
 * Records run events and state changes, each with its lifecycle and progress
 * events, in one transaction on the locked run row. Once a run is finished
 * nothing more is recorded: lines that arrive after a cancel are ignored.
 */
@Injectable()
export class RunRecorder {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
    private readonly metrics: RunMetrics,
    private readonly channel: RunEventChannel,
    private readonly admission: RunAdmission,
  ) {}

  async apply(runId: string, makeTransition: (state: RunState) => RunTransition): Promise<RecordResult> {
    const result = await this.dataSource.transaction(async (manager) => {
      const run = await manager.findOne(RunEntity, { where: { id: runId }, lock: { mode: 'pessimistic_write' } });
      if (!run || run.isFinished) return { result: 'ignored' as const, status: undefined, item: undefined, userId: undefined };
      const transition = makeTransition(stateOf(run));
      const item = await this.write(manager, run, transition);
      return { result: run.isFinished ? ('finished' as const) : ('recorded' as const), status: run.status, item, userId: run.userId };
    });
    if (result.item) this.channel.recorded(runId, result.item, result.result === 'finished');
    if (result.result !== 'ignored') this.outbox.kick();
    if (result.result === 'finished') {
      this.metrics.finished(result.status!);
      // The run no longer counts towards its user's and agent's limits: the next waiting one may go.
      this.admission.kick(result.userId!);
    }
    return result.result;
  }

  /** Answers the event as the API shows it, to be pushed to live streams once committed. */
  private async write(manager: EntityManager, run: RunEntity, t: RunTransition): Promise<RunEventItem> {
    const now = new Date();
    const index = Number(run.eventCount);
    const eventJson = JSON.stringify(t.event);
    await manager.query('INSERT INTO run_events (run_id, event_index, recorded_at, event) VALUES ($1, $2, $3, $4::jsonb)', [
      run.id,
      index,
      now,
      eventJson,
    ]);
    const bytes = Buffer.byteLength(eventJson, 'utf8');
    const before = stateOf(run);
    Object.assign(run, {
      status: t.next.status,
      isFinished: t.next.isFinished,
      isPaused: t.next.isPaused,
      hasPendingInput: t.next.hasPendingInput,
      eventCount: String(index + 1),
      eventBytes: String(Number(run.eventBytes) + bytes),
      stepCount: String(Number(run.stepCount) + t.stepDelta),
      lastEventAt: now,
      outcome: t.outcome ?? run.outcome,
      summary: t.summary ?? run.summary,
      wroteInstructions: run.wroteInstructions || t.instructions !== undefined,
      finishedAt: t.next.isFinished && !before.isFinished ? now : run.finishedAt,
    });
    await manager.save(run);
    if (t.lifecycle) await recordEvent(manager, t.lifecycle, lifecycleEvent(run, t, now));
    const agentVisible =
      t.lifecycle || t.chatMessage !== undefined || t.instructions !== undefined || before.hasPendingInput !== t.next.hasPendingInput;
    if (agentVisible || index === 0) {
      await recordEvent(manager, EventNames.RunProgress, progressEvent(run, index, t, now));
    }
    return { event_index: index, recorded_at: now.toISOString(), event: t.event };
  }
}

export function stateOf(run: RunEntity): RunState {
  return { status: run.status, isFinished: run.isFinished, isPaused: run.isPaused, hasPendingInput: run.hasPendingInput };
}

function lifecycleEvent(run: RunEntity, t: RunTransition, now: Date): RunLifecycleEvent {
  const event: RunLifecycleEvent = {
    event: t.lifecycle!,
    run_id: run.id,
    agent_id: run.agentId,
    user_id: run.userId,
    status: run.status,
    run_kind: run.runKind,
    schedule_agent_id: run.scheduleAgentId,
    timestamp: now.toISOString(),
    trigger_depth: run.triggerDepth,
    agent_generation: generationOf(run),
  };
  if (run.isFinished || run.isPaused) event.summary = run.summary;
  if (t.lifecycle === EventNames.RunCompleted && run.outcome) event.outcome = run.outcome;
  if (run.isFinished && run.finishedAt) event.finished_at = run.finishedAt.toISOString();
  return event;
}

function progressEvent(run: RunEntity, seq: number, t: RunTransition, now: Date): RunProgressEvent {
  const event: RunProgressEvent = {
    run_id: run.id,
    agent_id: run.agentId,
    user_id: run.userId,
    run_number: run.runNumber,
    run_mode: run.runMode,
    seq,
    status: run.status,
    is_finished: run.isFinished,
    has_pending_input: run.hasPendingInput,
    policy_type: run.policyType,
    wrote_instructions: run.wroteInstructions,
    at: now.toISOString(),
    agent_generation: generationOf(run),
  };
  if (t.chatMessage !== undefined) event.last_chat_message = t.chatMessage;
  if (run.runMode === 'build' && run.status === 'completed' && run.outcome === 'success') event.deployed_at = now.toISOString();
  return event;
}

function generationOf(run: RunEntity): number | null {
  return run.agentGeneration === null ? null : Number(run.agentGeneration);
}
