import { stepCountIs, streamText } from 'ai';
import { truncateChars } from '../lines/truncate';
import { runTools, writeToolError } from '../tools/run-tools';
import { SUMMARY_MAX_CHARS, outcomeOf } from './run-budget';
import { runInput, runSystemPrompt } from './prompts';
import { RunContext } from './run-context';
import { RunStopped } from './run-stop';

/**
 * A run: the instructions and the run's input go to the model, which calls tools until it answers
 * without one, within AGENT_MAX_STEPS, AGENT_MAX_TOKENS and the deadline. Lines go out as the stream goes.
 */
export async function executeToolRun(run: RunContext): Promise<void> {
  const { writer, controller } = run;
  writer.write({ type: 'title', title: titleOf(run) });
  const toolContext = { ...run.tools, writer };
  const { tools, announced, nameOf } = runTools(toolContext);
  const result = streamText({
    model: run.model,
    system: runSystemPrompt(run.dispatch),
    prompt: runInput(run.dispatch),
    tools,
    stopWhen: stepCountIs(run.budget.maxSteps),
    maxRetries: run.maxRetries,
    maxOutputTokens: run.maxOutputTokens,
    abortSignal: controller.signal,
    // Errors arrive as 'error' parts below; the SDK's default would print them to the console.
    onError: () => undefined,
  });
  let steps = 0;
  let text = '';
  let lastFinish: string | undefined;
  for await (const part of result.fullStream) {
    switch (part.type) {
      case 'start-step':
        steps += 1;
        text = '';
        writer.write({ type: 'step', title: `Step ${steps}` });
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
  if (lastFinish === 'tool-calls') throw run.budget.stepLimit();
  const { outcome, text: summary } = outcomeOf(text);
  writer.end({ type: 'completed', outcome, summary: truncateChars(summary, SUMMARY_MAX_CHARS) });
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
