import { EventNames, RUN_OUTCOMES, RunLifecycleEventName, RunOutcome, ToolIcon } from '@aas/contracts';
import { RuntimeLine } from '@aas/contracts';
import { CreditPrice, DEFAULT_CREDIT_PRICES, costInMillionths } from '../usage/credit-prices';
import { instructionsRefusal } from './run-instructions';
import { Read, readAgentName, readTitle, readToolCall, readUsage } from './runtime-line-v2';
import { toRunEvent } from './runtime-line';
import { toolIconFor } from './tool-icons';

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
}

/** What the version 2 lines are read with: the price table (CREDIT_PRICES) and the catalogue's icons. */
export interface LineContext {
  prices: CreditPrice[];
  iconOf: (tool: string) => string | null;
}

export const DEFAULT_LINE_CONTEXT: LineContext = { prices: DEFAULT_CREDIT_PRICES, iconOf: () => null };

/**
 * The run state machine of docs/runtime-protocol.md. A line that breaks the
 * protocol (a terminal line with a bad outcome) turns into a failure.
 */
export function transitionFor(state: RunState, line: RuntimeLine, context: LineContext = DEFAULT_LINE_CONTEXT): RunTransition {
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
      return transitionForV2(state, line, context, base);
  }
}

/**
 * The lines version 2 added. Each is recorded as an event; one whose form breaks the protocol ends
 * the run in error with the reason, as instructions agents-service would refuse do.
 */
function transitionForV2(state: RunState, line: RuntimeLine, context: LineContext, base: RunTransition): RunTransition {
  switch (line.type) {
    case 'usage':
      return applyRead(state, line, readUsage(line), base, (u) => ({
        usage: { ...u, costMillionths: costInMillionths(context.prices, u.model, u.inputTokens, u.outputTokens) },
      }));
    case 'tool_call':
      return applyRead(state, line, readToolCall(line), base, (call) => ({
        toolCall: toolIconFor(call.tool, call.input, context.iconOf(call.tool)),
      }));
    case 'title':
      return applyRead(state, line, readTitle(line), base, (title) => ({ title }));
    case 'agent_name':
      return applyRead(state, line, readAgentName(line), base, (agentName) => ({ agentName }));
    default:
      return base;
  }
}

function applyRead<T>(
  state: RunState,
  line: RuntimeLine,
  read: Read<T>,
  base: RunTransition,
  effect: (value: T) => Partial<RunTransition>,
): RunTransition {
  if ('refusal' in read) return fail(state, `the runtime sent a ${line.type} line that breaks the protocol: ${read.refusal}`);
  return { ...base, ...effect(read.value) };
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
