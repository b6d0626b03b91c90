import type { ServerResponse } from 'node:http';
import { ContentReply, DEFAULT_USAGE, argumentsOf, callId, pieces, textOf, toolCallsOf } from './fake-model-script';

/** The OpenAI chat completions wire format (`POST /v1/chat/completions`), as `@ai-sdk/openai-compatible` reads it. */
export const openAiWire = {
  path: '/v1/chat/completions',

  errorBody(status: number): string {
    return JSON.stringify({ error: { message: `scripted ${status}` } });
  },

  json(res: ServerResponse, body: any, reply: ContentReply): void {
    const usage = reply.usage ?? DEFAULT_USAGE;
    const calls = toolCallsOf(reply);
    const message = {
      role: 'assistant',
      content: ('text' in reply ? reply.text : undefined) ?? null,
      ...(calls.length ? { tool_calls: calls.map((call, index) => ({ id: callId(call, index), type: 'function', function: { name: call.name, arguments: argumentsOf(call) } })) } : {}),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [{ index: 0, message, finish_reason: calls.length ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
      }),
    );
  },

  /** SSE: text and tool-call arguments in pieces, usage in a last chunk when `stream_options.include_usage`, then `data: [DONE]`. */
  stream(res: ServerResponse, body: any, reply: ContentReply): void {
    const usage = reply.usage ?? DEFAULT_USAGE;
    const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
    const send = (data: object) => res.write(`data: ${JSON.stringify({ ...base, ...data })}\n\n`);
    const delta = (d: object, finish: string | null = null) => send({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    delta({ role: 'assistant', content: '' });
    for (const piece of pieces(textOf(reply), 8)) delta({ content: piece });
    const calls = toolCallsOf(reply);
    calls.forEach((call, index) => {
      delta({ tool_calls: [{ index, id: callId(call, index), type: 'function', function: { name: call.name, arguments: '' } }] });
      for (const piece of pieces(argumentsOf(call), 10)) delta({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    delta({}, calls.length ? 'tool_calls' : 'stop');
    if (body.stream_options?.include_usage) {
      send({ choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } });
    }
    res.end('data: [DONE]\n\n');
  },
};
