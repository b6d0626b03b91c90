import { EventNames, InputAnswerer, InputTimeoutFallback, RunLifecycleEventName, RunOutcome, ToolIcon } from '@aas/contracts';

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
  /** A `usage` line: its tokens, and what they cost by the price table. */
  usage?: { model: string; inputTokens: number; outputTokens: number; costMillionths: bigint };
  /** A `tool_call` line: the run's tool_icons entry for its tool. */
  toolCall?: ToolIcon;
  title?: string;
  /** A build run's `agent_name` line (ignored on other runs). */
  agentName?: { name: string; explanation: string | null };
  /** Event 0: the instructions version the run is dispatched with (null: the agent has none). */
  instructionsVersionId?: number | null;
  /** The input request the edge asks or closes, written in the same unit of work (docs/input-requests.md). */
  inputRequest?: { asked: AskedInputRequest } | { closed: ClosedInputRequest } | { paused: string };
  /** `suspend`: the run leaves admission's count of executing runs; `readmit`: it waits for admission again. */
  admission?: 'suspend' | 'readmit';
}

/** An input request a suspending `waiting_for_input` line asks; `state` and `answer` as JSON text. */
export interface AskedInputRequest {
  id: string;
  inputId: string;
  prompt: string;
  schema: Record<string, unknown>;
  choices: string[] | null;
  notify: string[];
  onTimeout: InputTimeoutFallback;
  state: string;
  /** What is left of the run's RUN_TIMEOUT_MS: its continuation gets that much. */
  timeLeftMs: number;
  pauseAt: Date;
  timeoutAt: Date;
}

/** A pending input request closed by an answer (a person's, or its timeout's fallback). */
export interface ClosedInputRequest {
  id: string;
  status: 'answered' | 'timed_out';
  answer: string | null;
  answeredBy: InputAnswerer;
}

/*
 * The run state machine (README.md beside this file): each function is one edge, from the state it is
 * given to `next`, with the lifecycle event the edge fires. Which runtime line takes which edge is
 * execution/line-transition.ts.
 */

/** Event 0: recorded before the dispatch is sent, with the instructions version it carries; fires run.started. */
export function start(state: RunState, instructionsVersionId: number | null = null): RunTransition {
  return { event: { started: {} }, stepDelta: 0, next: { ...state, status: 'in_progress' }, lifecycle: EventNames.RunStarted, instructionsVersionId };
}

/** A step clears pending input and counts. */
export function step(state: RunState, event: Record<string, unknown>): RunTransition {
  return { event, stepDelta: 1, next: { ...state, hasPendingInput: false } };
}

export function waitForInput(state: RunState, event: Record<string, unknown>): RunTransition {
  return { event, stepDelta: 0, next: { ...state, hasPendingInput: true } };
}

/**
 * A version 3 `waiting_for_input` line that suspends the run: it asks `request` and stops executing,
 * holding no worker and no admission slot until an answer readmits it (answer below).
 */
export function suspend(state: RunState, event: Record<string, unknown>, request: AskedInputRequest): RunTransition {
  return { event, stepDelta: 0, next: { ...state, hasPendingInput: true }, inputRequest: { asked: request }, admission: 'suspend' };
}

/**
 * An input request answered (by a person or its timeout's fallback): a paused run is in progress again
 * (no lifecycle event, as `resumed`), and the run waits for admission to be dispatched its continuation.
 */
export function answer(state: RunState, event: Record<string, unknown>, closed: ClosedInputRequest): RunTransition {
  return {
    event,
    stepDelta: 0,
    next: { ...state, status: 'in_progress', isPaused: false, hasPendingInput: false },
    inputRequest: { closed },
    admission: 'readmit',
  };
}

/**
 * A suspended run waiting past RUN_PAUSE_AFTER_MS: paused, written only while its request `requestId` is
 * still pending and not paused yet, so a pause never lands after the answer, nor twice.
 */
export function pauseWaiting(state: RunState, requestId: string): RunTransition {
  return { ...pause(state), inputRequest: { paused: requestId } };
}

/** Recorded as an event; the state changes (and run.paused fires) only for a run not paused yet. */
export function pause(state: RunState, event: Record<string, unknown> = { paused: {} }): RunTransition {
  return {
    event,
    stepDelta: 0,
    next: { ...state, status: 'paused', isPaused: true },
    lifecycle: state.isPaused ? undefined : EventNames.RunPaused,
  };
}

/** A paused run is in progress again; on a run not paused the line is only recorded. */
export function resume(state: RunState, event: Record<string, unknown>): RunTransition {
  return { event, stepDelta: 0, next: state.isPaused ? { ...state, status: 'in_progress', isPaused: false } : { ...state } };
}

export function complete(state: RunState, outcome: RunOutcome, summary: string | undefined, event: Record<string, unknown>): RunTransition {
  return {
    event,
    stepDelta: 0,
    next: { ...state, status: 'completed', isFinished: true, isPaused: false, hasPendingInput: false },
    outcome,
    summary,
    lifecycle: EventNames.RunCompleted,
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
