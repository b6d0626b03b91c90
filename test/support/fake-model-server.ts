import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicWire } from './fake-model-anthropic';
import { openAiWire } from './fake-model-openai';
import { ModelReply } from './fake-model-script';

export type { ModelReply, ScriptedToolCall, Usage } from './fake-model-script';

/** One request the server got, as it got it, and whether its client closed it before the answer ended. */
export interface ModelRequest {
  body: any;
  headers: IncomingMessage['headers'];
  script: string | undefined;
  closedEarly: boolean;
}

/** The wire formats the server speaks, by path. */
const WIRES = [openAiWire, anthropicWire];

/**
 * A model server for tests that speaks OpenAI's chat completions (`POST /v1/chat/completions`,
 * fake-model-openai.ts) and Anthropic's Messages API (`POST /v1/messages`, fake-model-anthropic.ts), so
 * either provider's base URL is `url`. Each script is found by a marker: the first script whose marker
 * occurs in the request's messages answers it, with its replies in order (the last one repeats). It
 * answers JSON, or SSE when `stream` is true (text and tool-call arguments in pieces, usage), and can
 * answer any status (429 with Retry-After, 500) or hang. Every request is recorded.
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
    const wire = WIRES.find((w) => w.path === req.url);
    if (!wire || body === undefined) return void res.writeHead(404).end();
    const reply = this.nextReply(script);
    if ('hang' in reply) return;
    if ('status' in reply) {
      return void res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(reply.body ?? wire.errorBody(reply.status));
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    if (body.stream) wire.stream(res, body, reply);
    else wire.json(res, body, reply);
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
}
