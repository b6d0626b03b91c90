import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer to one model call. */
export type ModelReply =
  | { text: string; usage?: Usage; delayMs?: number }
  | { toolCalls: ScriptedToolCall[]; text?: string; usage?: Usage; delayMs?: number }
  | { status: number; headers?: Record<string, string>; body?: string }
  | { hang: true };

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

/** One request the server got, as it got it, and whether its client closed it before the answer ended. */
export interface ModelRequest {
  body: any;
  headers: IncomingMessage['headers'];
  script: string | undefined;
  closedEarly: boolean;
}

const DEFAULT_USAGE: Usage = { input: 10, output: 5 };

/**
 * An OpenAI-compatible chat completions server (`POST /v1/chat/completions`) for tests. Each script is
 * found by a marker: the first script whose marker occurs in the request's messages answers it, with
 * its replies in order (the last one repeats). It answers JSON, or SSE when `stream` is true (text and
 * tool-call arguments in pieces, usage in a last chunk when `stream_options.include_usage`, then
 * `data: [DONE]`), and can answer any status (429 with Retry-After, 500) or hang. Every request is recorded.
 */
export class FakeModelServer {
  readonly requests: ModelRequest[] = [];
  private readonly scripts = new Map<string, { replies: ModelReply[]; next: number }>();
  private readonly closeWaiters: Array<{ script: string | undefined; resolve: () => void }> = [];
  private readonly open = new Set<ServerResponse>();
  private url_ = '';

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeModelServer> {
    const fake = new FakeModelServer(createServer((req, res) => void fake.serve(req, res)));
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    fake.url_ = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`;
    return fake;
  }

  /** The base URL a provider takes (`…/v1`). */
  get url(): string {
    return this.url_;
  }

  /** Answers requests whose messages contain `marker` with `replies`, in order; returns the marker. */
  script(marker: string, ...replies: ModelReply[]): string {
    this.scripts.set(marker, { replies, next: 0 });
    return marker;
  }

  requestsFor(marker: string): ModelRequest[] {
    return this.requests.filter((request) => request.script === marker);
  }

  /** Resolves when a request of `marker`'s script is closed by its client before its answer ended. */
  closedEarly(marker: string, timeoutMs = 5000): Promise<void> {
    if (this.requestsFor(marker).some((request) => request.closedEarly)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no request of ${marker} was closed within ${timeoutMs} ms`)), timeoutMs);
      this.closeWaiters.push({ script: marker, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  async close(): Promise<void> {
    for (const response of this.open) response.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: any;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = undefined;
    }
    const script = this.scriptFor(body);
    const record: ModelRequest = { body, headers: req.headers, script, closedEarly: false };
    this.requests.push(record);
    this.open.add(res);
    res.on('close', () => {
      this.open.delete(res);
      if (res.writableEnded) return;
      record.closedEarly = true;
      for (const waiter of this.closeWaiters.filter((w) => w.script === script)) waiter.resolve();
    });
    if (req.url !== '/v1/chat/completions' || body === undefined) return void res.writeHead(404).end();
    const reply = this.nextReply(script);
    if ('hang' in reply) return;
    if ('status' in reply) {
      return void res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body ?? JSON.stringify({ error: { message: `scripted ${reply.status}` } }));
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    if (body.stream) this.stream(res, body, reply);
    else this.json(res, body, reply);
  }

  private scriptFor(body: any): string | undefined {
    const text = JSON.stringify(body?.messages ?? []);
    return [...this.scripts.keys()].find((marker) => text.includes(marker));
  }

  private nextReply(script: string | undefined): ModelReply {
    const entry = script === undefined ? undefined : this.scripts.get(script);
    if (!entry || entry.replies.length === 0) return { text: 'No script for this request.' };
    const reply = entry.replies[Math.min(entry.next, entry.replies.length - 1)];
    entry.next += 1;
    return reply;
  }

  private json(res: ServerResponse, body: any, reply: Extract<ModelReply, { usage?: Usage }>): void {
    const usage = reply.usage ?? DEFAULT_USAGE;
    const calls = 'toolCalls' in reply ? reply.toolCalls : [];
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
  }

  private stream(res: ServerResponse, body: any, reply: Extract<ModelReply, { usage?: Usage }>): void {
    const usage = reply.usage ?? DEFAULT_USAGE;
    const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: body.model };
    const send = (data: object) => res.write(`data: ${JSON.stringify({ ...base, ...data })}\n\n`);
    const delta = (d: object, finish: string | null = null) => send({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    delta({ role: 'assistant', content: '' });
    const text = 'text' in reply ? (reply.text ?? '') : '';
    for (const piece of pieces(text, 8)) delta({ content: piece });
    const calls = 'toolCalls' in reply ? reply.toolCalls : [];
    calls.forEach((call, index) => {
      delta({ tool_calls: [{ index, id: callId(call, index), type: 'function', function: { name: call.name, arguments: '' } }] });
      for (const piece of pieces(argumentsOf(call), 10)) delta({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    delta({}, calls.length ? 'tool_calls' : 'stop');
    if (body.stream_options?.include_usage) {
      send({ choices: [], usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } });
    }
    res.end('data: [DONE]\n\n');
  }
}

let calls = 0;
function callId(call: ScriptedToolCall, index: number): string {
  return call.id ?? `call_${++calls}_${index}`;
}

function argumentsOf(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

function pieces(text: string, size: number): string[] {
  const result: string[] = [];
  for (let i = 0; i < text.length; i += size) result.push(text.slice(i, i + size));
  return result;
}
