import { EventNames, RUN_OUTCOMES, RunLifecycleEventName, RunOutcome } from '@aas/contracts';
import { instructionsRefusal } from './run-instructions';
import { RuntimeLine } from '@aas/contracts';
import { toRunEvent } from './runtime-line';

/** The state of a run that lines act on. */
export interface RunState {
  status: string;
  isFinished: boolean;
  isPaused: boolean;
  hasPendingInput: boolean;
}

/** What recording one line does to a run. */
export interface RunTransition {
  event: Record<string, unknown>;
  next: RunState;
  stepDelta: number;
  outcome?: RunOutcome;
  summary?: string;
  chatMessage?: string;
  lifecycle?: RunLifecycleEventName;
  instructions?: { content: string; plan_steps: unknown[] | null };
}

/**
 * The run state machine of docs/runtime-protocol.md. A line that breaks the
 * protocol (a terminal line with a bad outcome) turns into a failure.
 */
export function transitionFor(state: RunState, line: RuntimeLine): RunTransition {
  const base = { event: toRunEvent(line), next: { ...state }, stepDelta: 0 };
  switch (line.type) {
    case 'step':
      return { ...base, stepDelta: 1, next: { ...state, hasPendingInput: false } };
    case 'message':
      return typeof line.text === 'string' ? { ...base, chatMessage: line.text } : base;
    case 'waiting_for_input':
      return { ...base, next: { ...state, hasPendingInput: true } };
    case 'paused':
      return pause(state, base.event);
    case 'resumed':
      return state.isPaused ? { ...base, next: { ...state, status: 'in_progress', isPaused: false } } : base;
    case 'instructions':
      return typeof line.content === 'string' ? instruct(state, line.content, Array.isArray(line.plan_steps) ? line.plan_steps : null, base) : base;
    case 'completed':
      return complete(state, line, base.event);
    case 'failed':
      return fail(state, typeof line.error === 'string' ? line.error : 'the runtime reported a failure', base.event);
    default:
      return base;
  }
}

export function pause(state: RunState, event: Record<string, unknown> = { paused: {} }): RunTransition {
  return {
    event,
    stepDelta: 0,
    next: { ...state, status: 'paused', isPaused: true },
    lifecycle: state.isPaused ? undefined : EventNames.RunPaused,
  };
}

export function fail(state: RunState, reason: string, event: Record<string, unknown> = { failed: { error: reason } }): RunTransition {
  return {
    event,
    stepDelta: 0,
    next: { ...state, status: 'error', isFinished: true, isPaused: false, hasPendingInput: false },
    lifecycle: EventNames.RunFailed,
  };
}

export function stop(state: RunState, reason: string | null): RunTransition {
  return {
    event: { stopped: { reason } },
    stepDelta: 0,
    next: { ...state, status: 'stopped', isFinished: true, isPaused: false, hasPendingInput: false },
    lifecycle: EventNames.RunStopped,
  };
}

function complete(state: RunState, line: RuntimeLine, event: Record<string, unknown>): RunTransition {
  if (!RUN_OUTCOMES.includes(line.outcome as RunOutcome)) {
    return fail(state, `the runtime completed with an invalid outcome ${JSON.stringify(line.outcome)}`, event);
  }
  return {
    event,
    stepDelta: 0,
    next: { ...state, status: 'completed', isFinished: true, isPaused: false, hasPendingInput: false },
    outcome: line.outcome as RunOutcome,
    summary: typeof line.summary === 'string' ? line.summary : undefined,
    lifecycle: EventNames.RunCompleted,
  };
}

/** Instructions agents-service would refuse end the run in error, recorded with why (docs/runtime-protocol.md). */
function instruct(state: RunState, content: string, planSteps: unknown[] | null, base: RunTransition): RunTransition {
  const refusal = instructionsRefusal(content, planSteps);
  if (refusal) return fail(state, `the runtime sent instructions that cannot be stored: ${refusal}`);
  return { ...base, instructions: { content, plan_steps: planSteps } };
}

/** Event 0: recorded before the dispatch is sent, and fires run.started. */
export function start(state: RunState): RunTransition {
  return { event: { started: {} }, stepDelta: 0, next: { ...state, status: 'in_progress' }, lifecycle: EventNames.RunStarted };
}
