import { INPUT_STATE_MAX_BYTES } from '@aas/contracts';
import { ModelMessage, stepCountIs, streamText } from 'ai';
import { truncateChars, truncateUtf8 } from '../lines/truncate';
import { ASK_USER, AskUserInput } from '../tools/ask-user.tool';
import { runTools, writeToolError } from '../tools/run-tools';
import { SUMMARY_MAX_CHARS, outcomeOf } from './run-budget';
import { runInput, runSystemPrompt } from './prompts';
import { RunContext } from './run-context';
import { RunStopped, RunSuspended } from './run-stop';
import { SuspendedConversation, isSuspendedConversation, resumedMessages, suspends } from './suspended-conversation';

/**
 * A run: the instructions and the run's input go to the model, which calls tools until it answers
 * without one, within AGENT_MAX_STEPS, AGENT_MAX_TOKENS and the deadline. Lines go out as the stream goes.
 */
export async function executeToolRun(run: RunContext): Promise<void> {
  const { writer, controller } = run;
  const start = startOf(run);
  if (!run.dispatch.continuation) writer.write({ type: 'title', title: titleOf(run) });
  const toolContext = { ...run.tools, writer, suspends: suspends(run.dispatch) };
  const { tools, announced, nameOf } = runTools(toolContext);
  const result = streamText({
    model: run.model,
    system: runSystemPrompt(run.dispatch),
    messages: start.messages,
    tools,
    stopWhen: stepCountIs(Math.max(1, run.budget.maxSteps - start.spent.steps)),
    maxRetries: run.maxRetries,
    maxOutputTokens: run.maxOutputTokens,
    abortSignal: controller.signal,
    // Errors arrive as 'error' parts below; the SDK's default would print them to the console.
    onError: () => undefined,
  });
  const spent = { ...start.spent };
  let text = '';
  let lastFinish: string | undefined;
  let asked: { callId: string; input: AskUserInput } | undefined;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'tool-call':
        // Version 3: ask_user has no execute; its call ends the model loop and the run suspends below.
        if (toolContext.suspends && part.toolName === ASK_USER && !part.invalid) {
          announced.add(part.toolCallId);
          writer.write({ type: 'tool_call', call_id: part.toolCallId, tool: ASK_USER, input: part.input });
          asked = { callId: part.toolCallId, input: part.input as AskUserInput };
        }
        break;
      case 'start-step':
        spent.steps += 1;
        text = '';
        writer.write({ type: 'step', title: `Step ${spent.steps}` });
        break;
      case 'text-delta':
        text += part.text;
        break;
      case 'text-end':
        if (text.trim()) writer.write({ type: 'message', text });
        break;
      case 'tool-error':
        // Calls the SDK refused before running them (unknown tool, input off its schema) were never announced.
        if (!announced.has(part.toolCallId)) {
          writer.write({ type: 'tool_call', call_id: part.toolCallId, tool: nameOf(part.toolName), input: part.input ?? null });
          writeToolError(toolContext, part.toolCallId, nameOf(part.toolName), part.error);
        }
        break;
      case 'finish-step': {
        lastFinish = part.finishReason;
        const input = part.usage.inputTokens ?? 0;
        const output = part.usage.outputTokens ?? 0;
        writer.write({ type: 'usage', model: run.modelName, input_tokens: input, output_tokens: output });
        spent.input_tokens += input;
        spent.output_tokens += output;
        const limit = run.budget.addUsage(input, output);
        if (limit) controller.abort(limit);
        break;
      }
      case 'error':
        if (!controller.signal.aborted) throw new RunStopped(`the model failed: ${errorMessage(part.error)}`);
        break;
    }
  }
  if (controller.signal.aborted) throw controller.signal.reason;
  if (asked) return suspend(run, asked, [...start.messages, ...(await result.response).messages], spent);
  if (lastFinish === 'tool-calls') throw run.budget.stepLimit();
  const { outcome, text: summary } = outcomeOf(text);
  writer.end({ type: 'completed', outcome, summary: truncateChars(summary, SUMMARY_MAX_CHARS) });
}

/** Where the model loop starts: the run's input, or (a continuation) the suspended conversation with the answer. */
function startOf(run: RunContext): { messages: ModelMessage[]; spent: Omit<SuspendedConversation, 'messages' | 'ask_call_id'> } {
  const { continuation } = run.dispatch;
  if (!continuation) return { messages: [{ role: 'user', content: runInput(run.dispatch) }], spent: { steps: 0, input_tokens: 0, output_tokens: 0 } };
  if (!isSuspendedConversation(continuation.state)) throw new RunStopped('the continuation carries a state this runtime did not write');
  const { conversation, messages } = resumedMessages(continuation);
  const { text, truncated } = truncateUtf8(JSON.stringify(continuation.answer ?? null), run.tools.outputMaxBytes);
  run.writer.write({ type: 'tool_result', call_id: conversation.ask_call_id, tool: ASK_USER, output: text, truncated, is_error: false });
  const limit = run.budget.addUsage(conversation.input_tokens, conversation.output_tokens);
  if (limit) throw limit;
  return { messages, spent: { steps: conversation.steps, input_tokens: conversation.input_tokens, output_tokens: conversation.output_tokens } };
}

/** Asks the person and ends the stream: the conversation is the state runs-service keeps and sends back with the answer. */
function suspend(run: RunContext, asked: { callId: string; input: AskUserInput }, messages: ModelMessage[], spent: Omit<SuspendedConversation, 'messages' | 'ask_call_id'>): never {
  const state: SuspendedConversation = { messages, ask_call_id: asked.callId, ...spent };
  if (Buffer.byteLength(run.writer.serialize({ type: 'state', state }), 'utf8') > INPUT_STATE_MAX_BYTES) {
    throw new RunStopped(`the conversation is larger than the ${INPUT_STATE_MAX_BYTES} bytes a run waiting for a person may keep`);
  }
  run.writer.write({
    type: 'waiting_for_input',
    suspend: true,
    input_id: asked.callId,
    prompt: asked.input.prompt,
    schema: asked.input.schema ?? { type: 'string' },
    state,
  });
  run.controller.abort(new RunSuspended());
  throw new RunSuspended();
}

/** The run's title, known before the model answers: its message's first line, else what started it. */
function titleOf(run: RunContext): string {
  const { dispatch } = run;
  const firstLine = dispatch.user_message?.trim().split('\n')[0];
  if (firstLine) return truncateChars(firstLine, 100);
  if (dispatch.scheduled_for) return `Scheduled run for ${dispatch.scheduled_for}`;
  if (dispatch.trigger) return `Run started by a ${dispatch.trigger.kind} trigger`;
  return `Run ${dispatch.run_number}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
