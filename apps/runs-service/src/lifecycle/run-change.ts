import { EventNames, RunAgentNameEvent, RunInstructionsEvent, RunLifecycleEvent, RunProgressEvent } from '@aas/contracts';
import { RunEntity } from '../database/run.entity';
import { OutboxWrite, RunChange } from './run-record.store';
import { RunState, RunTransition } from './run-transition';
import { withToolIcon } from './tool-icons-used';

/**
 * What recording `t` on `run` writes: the event at the run's next index, the run's columns after it,
 * its lifecycle event, a progress event when agents-service shows the change (and for event 0), and
 * the instructions the run wrote, for agents-service to store.
 */
export function changeFor(run: RunEntity, t: RunTransition, now: Date): RunChange {
  const index = Number(run.eventCount);
  const bytes = Buffer.byteLength(JSON.stringify(t.event), 'utf8');
  const before = stateOf(run);
  const after: RunEntity = {
    ...run,
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
    instructionsVersionId: t.instructionsVersionId === undefined ? run.instructionsVersionId : t.instructionsVersionId === null ? null : String(t.instructionsVersionId),
    ...lineFields(run, t),
    ...admissionFields(t),
  };
  const outbox: OutboxWrite[] = [];
  if (t.lifecycle) outbox.push({ event: t.lifecycle, payload: lifecycleEvent(after, t, now) });
  const agentVisible =
    t.lifecycle || t.chatMessage !== undefined || t.instructions !== undefined || before.hasPendingInput !== t.next.hasPendingInput;
  if (agentVisible || index === 0) outbox.push({ event: EventNames.RunProgress, payload: progressEvent(after, index, t, now) });
  if (t.instructions) outbox.push({ event: EventNames.RunInstructions, payload: instructionsEvent(after, index, t.instructions) });
  if (t.agentName && run.runMode === 'build') outbox.push({ event: EventNames.RunAgentName, payload: agentNameEvent(after, index, t.agentName) });
  const change: RunChange = { event: { index, at: now, body: t.event }, run: after, outbox };
  if (t.inputRequest) change.inputRequest = t.inputRequest;
  return change;
}

/** A suspended run is not executing; an answered one waits for admission again (admission/). */
function admissionFields(t: RunTransition): Partial<RunEntity> {
  if (t.admission === 'suspend') return { awaitingInput: true };
  if (t.admission === 'readmit') return { awaitingInput: false, admittedAt: null };
  return {};
}

/** The columns the version 2 lines set: usage and its credits, the tools used, the title. */
function lineFields(run: RunEntity, t: RunTransition): Partial<RunEntity> {
  const fields: Partial<RunEntity> = {};
  if (t.usage) {
    fields.inputTokens = String(BigInt(run.inputTokens) + BigInt(t.usage.inputTokens));
    fields.outputTokens = String(BigInt(run.outputTokens) + BigInt(t.usage.outputTokens));
    fields.modelCalls = run.modelCalls + 1;
    fields.creditMillionths = String(BigInt(run.creditMillionths ?? 0) + t.usage.costMillionths);
    fields.policyModel = t.usage.model;
  }
  if (t.toolCall) {
    fields.toolCallCount = run.toolCallCount + 1;
    fields.toolIcons = withToolIcon(run.toolIcons, t.toolCall);
  }
  if (t.title !== undefined) fields.title = t.title;
  return fields;
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
    chain_root_id: run.chainRootId ?? run.id,
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

export function instructionsEvent(run: RunEntity, seq: number, instructions: NonNullable<RunTransition['instructions']>): RunInstructionsEvent {
  const event: RunInstructionsEvent = {
    run_id: run.id,
    agent_id: run.agentId,
    user_id: run.userId,
    seq,
    content: instructions.content,
    agent_generation: generationOf(run),
  };
  if (instructions.plan_steps) event.plan_steps = instructions.plan_steps as RunInstructionsEvent['plan_steps'];
  return event;
}

function generationOf(run: RunEntity): number | null {
  return run.agentGeneration === null ? null : Number(run.agentGeneration);
}

export function agentNameEvent(run: RunEntity, seq: number, agentName: NonNullable<RunTransition['agentName']>): RunAgentNameEvent {
  return {
    run_id: run.id,
    agent_id: run.agentId,
    user_id: run.userId,
    seq,
    name: agentName.name,
    explanation: agentName.explanation,
    agent_generation: generationOf(run),
  };
}
