/** One scripted answer to one model call, whatever the wire format (test/support/fake-model-server.ts). */
export type ModelReply =
  | { text: string; usage?: Usage; delayMs?: number }
  | { toolCalls: ScriptedToolCall[]; text?: string; usage?: Usage; delayMs?: number }
  | { status: number; headers?: Record<string, string>; body?: string }
  | { hang: true };

/** A reply the server answers with content (text, tool calls, usage). */
export type ContentReply = Extract<ModelReply, { usage?: Usage }>;

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as its JSON; a string as it is (to send arguments that are not valid JSON). */
  arguments: object | string;
  id?: string;
}

export interface Usage {
  input: number;
  output: number;
}

export const DEFAULT_USAGE: Usage = { input: 10, output: 5 };

let calls = 0;
/** The call's scripted id, else a new one with `prefix` (`call` for OpenAI, `toolu` for Anthropic). */
export function callId(call: ScriptedToolCall, index: number, prefix = 'call'): string {
  return call.id ?? `${prefix}_${++calls}_${index}`;
}

export function argumentsOf(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

export const textOf = (reply: ContentReply): string => ('text' in reply ? (reply.text ?? '') : '');
export const toolCallsOf = (reply: ContentReply): ScriptedToolCall[] => ('toolCalls' in reply ? reply.toolCalls : []);

/** `text` in pieces of `size` characters, as a stream sends it. */
export function pieces(text: string, size: number): string[] {
  const result: string[] = [];
  for (let i = 0; i < text.length; i += size) result.push(text.slice(i, i + size));
  return result;
}
