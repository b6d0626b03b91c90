import { RUN_OUTCOMES, RunOutcome, RuntimeLine } from '@aas/contracts';
import { RunState, RunTransition, complete, fail, pause, resume, step, waitForInput } from '../lifecycle/run-transition';
import { CreditPrice, DEFAULT_CREDIT_PRICES, costInMillionths } from '../usage/credit-prices';
import { instructionsRefusal } from './run-instructions';
import { Read, readAgentName, readTitle, readToolCall, readUsage } from './runtime-line-v2';
import { toRunEvent } from './runtime-line';
import { toolIconFor } from './tool-icons';

/** What the version 2 lines are read with: the price table (CREDIT_PRICES) and the catalogue's icons. */
export interface LineContext {
  prices: CreditPrice[];
  iconOf: (tool: string) => string | null;
}

export const DEFAULT_LINE_CONTEXT: LineContext = { prices: DEFAULT_CREDIT_PRICES, iconOf: () => null };

/**
 * Which edge of the run state machine (lifecycle/run-transition.ts) a runtime line takes, as
 * docs/runtime-protocol.md has it. A line that breaks the protocol (a terminal line with a bad
 * outcome) turns into a failure.
 */
export function transitionFor(state: RunState, line: RuntimeLine, context: LineContext = DEFAULT_LINE_CONTEXT): RunTransition {
  const event = toRunEvent(line);
  const base: RunTransition = { event, next: { ...state }, stepDelta: 0 };
  switch (line.type) {
    case 'step':
      return step(state, event);
    case 'message':
      return typeof line.text === 'string' ? { ...base, chatMessage: line.text } : base;
    case 'waiting_for_input':
      return waitForInput(state, event);
    case 'paused':
      return pause(state, event);
    case 'resumed':
      return resume(state, event);
    case 'instructions':
      return typeof line.content === 'string' ? instruct(state, line.content, Array.isArray(line.plan_steps) ? line.plan_steps : null, base) : base;
    case 'completed':
      return RUN_OUTCOMES.includes(line.outcome as RunOutcome)
        ? complete(state, line.outcome as RunOutcome, typeof line.summary === 'string' ? line.summary : undefined, event)
        : fail(state, `the runtime completed with an invalid outcome ${JSON.stringify(line.outcome)}`, event);
    case 'failed':
      return fail(state, typeof line.error === 'string' ? line.error : 'the runtime reported a failure', event);
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

/** Instructions agents-service would refuse end the run in error, recorded with why (docs/runtime-protocol.md). */
function instruct(state: RunState, content: string, planSteps: unknown[] | null, base: RunTransition): RunTransition {
  const refusal = instructionsRefusal(content, planSteps);
  if (refusal) return fail(state, `the runtime sent instructions that cannot be stored: ${refusal}`);
  return { ...base, instructions: { content, plan_steps: planSteps } };
}
