import { RunContinuation, RunDispatch } from '@aas/contracts';
import type { ModelMessage } from 'ai';

/** Protocol version 3: a run that asks a person suspends, and comes back as a continuation (docs/runtime.md). */
export const SUSPENDING_PROTOCOL_VERSION = 3;

/**
 * The `state` of a suspending line: the conversation so far (the run's input, then the model's and the
 * tools' messages up to the step that called ask_user), the open ask_user call, and the budget spent.
 */
export interface SuspendedConversation {
  messages: ModelMessage[];
  ask_call_id: string;
  steps: number;
  input_tokens: number;
  output_tokens: number;
}

export function suspends(dispatch: RunDispatch): boolean {
  return dispatch.protocol_version >= SUSPENDING_PROTOCOL_VERSION;
}

/** The conversation a continuation resumes: the suspended one, with the person's answer as ask_user's result. */
export function resumedMessages(continuation: RunContinuation): { conversation: SuspendedConversation; messages: ModelMessage[] } {
  const conversation = continuation.state as SuspendedConversation;
  const answer: ModelMessage = {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: conversation.ask_call_id,
        toolName: 'ask_user',
        output: { type: 'json', value: (continuation.answer ?? null) as never },
      },
    ],
  };
  return { conversation, messages: [...conversation.messages, answer] };
}

/** Whether a continuation's state is one this runtime wrote (another runtime's, or a damaged one, is refused). */
export function isSuspendedConversation(state: unknown): state is SuspendedConversation {
  const s = state as SuspendedConversation;
  return (
    typeof s === 'object' &&
    s !== null &&
    Array.isArray(s.messages) &&
    typeof s.ask_call_id === 'string' &&
    [s.steps, s.input_tokens, s.output_tokens].every((n) => Number.isSafeInteger(n) && n >= 0)
  );
}
