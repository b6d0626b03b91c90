import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One dispatch request as the runtime received it. */
export interface Dispatch {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The parsed body, or undefined when it is not JSON. */
  body: any;
}

/** The runtime's side of one dispatch: what a script answers with. */
export class Reply {
  /** Resolves when the client closes the connection before the response ended. */
  readonly closed: Promise<void>;
  private closedByClient = false;
  private dropped = false;

  constructor(private readonly res: ServerResponse) {
    this.closed = new Promise((resolve) =>
      res.on('close', () => {
        if (res.writableEnded || this.dropped) return;
        this.closedByClient = true;
        resolve();
      }),
    );
  }

  get isClosed(): boolean {
    return this.closedByClient || this.res.destroyed;
  }

  /** Answers `code` with a plain-text body. */
  status(code: number, body = ''): void {
    this.res.writeHead(code, { 'content-type': 'text/plain' }).end(body);
  }

  /** Answers `code` with a JSON body. */
  json(code: number, value: unknown): void {
    this.res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  }

  /** Sends one line: an object as JSON, a string as it is. The 200 NDJSON head goes out first. */
  line(value: object | string): void {
    if (this.isClosed) return;
    this.open();
    this.res.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);
  }

  /** Ends the stream (with no terminal line unless one was sent). */
  end(): void {
    if (this.isClosed) return;
    this.open();
    this.res.end();
  }

  /** Drops the connection without an answer. */
  destroy(): void {
    this.dropped = true;
    this.res.socket?.destroy();
  }

  private open(): void {
    if (!this.res.headersSent) this.res.writeHead(200, { 'content-type': 'application/x-ndjson' }).flushHeaders();
  }
}

export type Script = (reply: Reply, dispatch: Dispatch) => Promise<void> | void;

/** A script step: an object is a JSON line, a string a raw line, a number a pause in ms. */
export type Step = object | string | number;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function play(reply: Reply, steps: Step[]): Promise<void> {
  for (const step of steps) {
    if (typeof step === 'number') await sleep(step);
    else reply.line(step);
  }
}

/** Sends the steps, then ends the stream. */
export const lines =
  (...steps: Step[]): Script =>
  async (reply) => {
    await play(reply, steps);
    reply.end();
  };

/** Sends the steps, then keeps the stream open until the client closes it. */
export const hang =
  (...steps: Step[]): Script =>
  async (reply) => {
    await play(reply, steps);
    await reply.closed;
  };

/**
 * An agent runtime over real HTTP on 127.0.0.1. It records every dispatch and
 * answers with the script registered for the dispatch's `user_message`, else
 * with `handler`, else 500.
 */
export class TestRuntime {
  readonly dispatches: Dispatch[] = [];
  handler?: Script;
  /** Requests for `GET /tools` (the tool catalogue, protocol version 2), kept apart from the dispatches. */
  readonly catalogueRequests: Dispatch[] = [];
  /** How `GET /tools` is answered; unset: 404, as a version 1 runtime answers. */
  catalogue?: (reply: Reply) => void;
  private readonly scripts = new Map<string, Script>();
  private readonly closedRuns = new Set<string>();
  private readonly closeWaiters = new Map<string, () => void>();
  private url_ = '';

  private constructor(private readonly server: Server) {}

  static async start(): Promise<TestRuntime> {
    const runtime = new TestRuntime(createServer((req, res) => void runtime.serve(req, res)));
    await new Promise<void>((resolve) => runtime.server.listen(0, '127.0.0.1', resolve));
    runtime.url_ = `http://127.0.0.1:${(runtime.server.address() as AddressInfo).port}`;
    return runtime;
  }

  get url(): string {
    return this.url_;
  }

  /** Answers dispatches whose user_message is `userMessage` with `script`; returns `userMessage`. */
  script(userMessage: string, script: Script): string {
    this.scripts.set(userMessage, script);
    return userMessage;
  }

  dispatchesFor(runId: string): Dispatch[] {
    return this.dispatches.filter((d) => d.body?.run_id === runId);
  }

  /** Resolves once the client has closed the connection of `runId`'s dispatch before its response ended. */
  connectionClosed(runId: string, timeoutMs = 5000): Promise<void> {
    if (this.closedRuns.has(runId)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.closeWaiters.delete(runId);
        reject(new Error(`the runtime did not see the connection of run ${runId} closed within ${timeoutMs} ms`));
      }, timeoutMs);
      this.closeWaiters.set(runId, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  sawConnectionClosed(runId: string): boolean {
    return this.closedRuns.has(runId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private serveCatalogue(request: Dispatch, res: ServerResponse): void {
    this.catalogueRequests.push(request);
    const reply = new Reply(res);
    if (this.catalogue) this.catalogue(reply);
    else reply.status(404, 'not found');
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const dispatch: Dispatch = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body };
    if (dispatch.method === 'GET' && dispatch.path.endsWith('/tools')) return this.serveCatalogue(dispatch, res);
    this.dispatches.push(dispatch);

    const reply = new Reply(res);
    const runId = String(body?.run_id ?? req.headers['x-run-id']);
    void reply.closed.then(() => {
      this.closedRuns.add(runId);
      this.closeWaiters.get(runId)?.();
    });
    const script = this.scripts.get(body?.user_message) ?? this.handler;
    try {
      if (script) await script(reply, dispatch);
      else reply.status(500, `no script for user_message ${JSON.stringify(body?.user_message)}`);
    } catch {
      reply.destroy();
    }
  }
}
