import { randomUUID } from 'node:crypto';
import { Tool, ToolCallOptions, ToolSet, tool } from 'ai';
import { LineWriter } from '../lines/line-writer';
import { truncateUtf8 } from '../lines/truncate';
import { ASK_USER, ASK_USER_DESCRIPTION, askUserInput, waitForAnswer } from './ask-user.tool';
import { HTTP_REQUEST, HTTP_REQUEST_DESCRIPTION, HttpToolLimits, httpRequestInput, sendHttpRequest } from './http-request.tool';
import { McpTool } from './mcp-servers';

export interface RunToolContext {
  writer: LineWriter;
  http: HttpToolLimits;
  outputMaxBytes: number;
  /** The MCP servers' tools (McpServers). */
  mcp: McpTool[];
  /**
   * Protocol version 3: ask_user has no execute, so the model's call ends the run's model loop and the run
   * suspends (tool-run.ts); before it, ask_user waits, holding the run, until it ends.
   */
  suspends?: boolean;
}

// Header names whose values are credentials: shown as [redacted] in tool_call lines.
const SECRET_HEADER = /authorization|cookie|token|secret|api[-_]?key|password|signature/i;

/** The tools of one run; each call is announced by a tool_call line and answered by a tool_result line. */
export function runTools(context: RunToolContext): { tools: ToolSet; announced: Set<string>; nameOf: (modelName: string) => string } {
  const announced = new Set<string>();
  const observe = async (name: string, callId: string, shownInput: unknown, work: () => Promise<string>, signal?: AbortSignal) => {
    announced.add(callId);
    context.writer.write({ type: 'tool_call', call_id: callId, tool: name, input: shownInput });
    try {
      const { text, truncated } = truncateUtf8(await work(), context.outputMaxBytes);
      context.writer.write({ type: 'tool_result', call_id: callId, tool: name, output: text, truncated, is_error: false });
      return truncated ? `${text}\n[output cut to ${context.outputMaxBytes} bytes]` : text;
    } catch (error) {
      // A run that is ending (cancel, deadline, a limit) says so with its own terminal line.
      if (!signal?.aborted) writeToolError(context, callId, name, error);
      throw error;
    }
  };
  const tools: ToolSet = {
    [HTTP_REQUEST]: tool({
      description: HTTP_REQUEST_DESCRIPTION,
      inputSchema: httpRequestInput,
      execute: (input, { toolCallId, abortSignal }) =>
        observe(HTTP_REQUEST, toolCallId, { ...input, headers: redactHeaders(input.headers) }, () => sendHttpRequest(input, context.http, abortSignal), abortSignal),
    }),
    [ASK_USER]: context.suspends ? tool({ description: ASK_USER_DESCRIPTION, inputSchema: askUserInput }) : tool({
      description: ASK_USER_DESCRIPTION,
      inputSchema: askUserInput,
      execute: (input, { toolCallId, abortSignal }) =>
        observe(
          ASK_USER,
          toolCallId,
          input,
          () => {
            context.writer.write({ type: 'waiting_for_input', input_id: randomUUID(), prompt: input.prompt, schema: input.schema ?? { type: 'string' } });
            return waitForAnswer(abortSignal);
          },
          abortSignal,
        ),
    }),
  };
  for (const mcp of context.mcp) {
    const call = mcp.call;
    tools[mcp.modelName] = {
      ...mcp.tool,
      // The output is our text (cut to size), not the MCP result the client's converter expects.
      toModelOutput: undefined,
      execute: (input: unknown, options: ToolCallOptions) =>
        observe(mcp.name, options.toolCallId, input, async () => mcpOutputText(await call(input, options)), options.abortSignal),
    } as Tool;
  }
  const names = new Map(context.mcp.map((mcp) => [mcp.modelName, mcp.name]));
  return { tools, announced, nameOf: (modelName) => names.get(modelName) ?? modelName };
}

/** An MCP tool's result (content parts) as text; a result flagged isError fails the call with that text. */
function mcpOutputText(result: unknown): string {
  const { content, isError } = (result ?? {}) as { content?: { type: string; text?: string }[]; isError?: boolean };
  const text = Array.isArray(content)
    ? content.map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : JSON.stringify(part))).join('\n')
    : JSON.stringify(result);
  if (isError) throw new Error(text);
  return text;
}

/** A tool_result line for a failed call (also for calls the SDK refused: an unknown tool, input not matching its schema). */
export function writeToolError(context: Pick<RunToolContext, 'writer' | 'outputMaxBytes'>, callId: string, name: string, error: unknown): void {
  const { text, truncated } = truncateUtf8(error instanceof Error ? error.message : String(error), context.outputMaxBytes);
  context.writer.write({ type: 'tool_result', call_id: callId, tool: name, output: text, truncated, is_error: true });
}

function redactHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, SECRET_HEADER.test(name) ? '[redacted]' : value]));
}
