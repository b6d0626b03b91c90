import type { ServerResponse } from 'node:http';
import { ContentReply, DEFAULT_USAGE, ScriptedToolCall, argumentsOf, callId, pieces, textOf, toolCallsOf } from './fake-model-script';

/**
 * The Anthropic Messages wire format (`POST /v1/messages`), as `@ai-sdk/anthropic` reads it: a `message`
 * object, or SSE events `message_start` (input tokens), `content_block_start/delta/stop` (text deltas,
 * tool_use blocks with their input as `input_json_delta` pieces), `message_delta` (stop reason, output
 * tokens) and `message_stop`; errors as `{"type":"error","error":{type, message}}`.
 */
export const anthropicWire = {
  path: '/v1/messages',

  errorBody(status: number): string {
    const type = status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
    return JSON.stringify({ type: 'error', error: { type, message: `scripted ${status}` } });
  },

  json(res: ServerResponse, body: any, reply: ContentReply): void {
    const usage = reply.usage ?? DEFAULT_USAGE;
    const calls = toolCallsOf(reply);
    const content = [
      ...(textOf(reply) ? [{ type: 'text', text: textOf(reply) }] : []),
      ...calls.map((call, index) => ({ type: 'tool_use', id: callId(call, index, 'toolu'), name: call.name, input: inputOf(call) })),
    ];
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        ...message(body, calls),
        content,
        stop_reason: calls.length ? 'tool_use' : 'end_turn',
        usage: { input_tokens: usage.input, output_tokens: usage.output },
      }),
    );
  },

  stream(res: ServerResponse, body: any, reply: ContentReply): void {
    const usage = reply.usage ?? DEFAULT_USAGE;
    const calls = toolCallsOf(reply);
    const send = (data: SseEvent) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    send({ type: 'message_start', message: { ...message(body, calls), content: [], stop_reason: null, usage: { input_tokens: usage.input, output_tokens: 1 } } });
    send({ type: 'ping' });
    let index = 0;
    if (textOf(reply)) {
      send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of pieces(textOf(reply), 8)) send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      send({ type: 'content_block_stop', index: index++ });
    }
    calls.forEach((call, i) => {
      send({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: callId(call, i, 'toolu'), name: call.name, input: {} } });
      for (const partial_json of pieces(argumentsOf(call), 10)) send({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      send({ type: 'content_block_stop', index: index++ });
    });
    send({ type: 'message_delta', delta: { stop_reason: calls.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output } });
    send({ type: 'message_stop' });
    res.end();
  },
};

/** One server-sent event: its `type` is also its `event:` name. */
type SseEvent = { type: string } & Record<string, unknown>;

function message(body: any, calls: ScriptedToolCall[]): object {
  return { id: `msg_fake_${calls.length}`, type: 'message', role: 'assistant', model: body.model, stop_sequence: null };
}

/** A tool_use block's input is an object; scripted arguments that are not JSON are sent as the string they are. */
function inputOf(call: ScriptedToolCall): unknown {
  try {
    return JSON.parse(argumentsOf(call));
  } catch {
    return argumentsOf(call);
  }
}
