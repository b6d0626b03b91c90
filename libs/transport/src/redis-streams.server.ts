import { ROOT_CONTEXT, SpanKind, propagation, trace } from '@opentelemetry/api';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { CustomTransportStrategy, Server, WritePacket } from '@nestjs/microservices';
import { problemFromCode, ProblemCode } from '@aas/problem-details';
import Redis from 'ioredis';
import { RpcMetadata, RpcRequestEntry, decodeRequest, encodeReply } from './rpc-message';
import { consumerAliveKey, requestStreamKey } from './stream-keys';
import { StreamsRpcContext } from './streams-rpc.context';

export interface RedisStreamsServerOptions {
  url: string;
  prefix: string;
  /** Consumer group and stream name: every replica of a service shares one group, so each request reaches one replica. */
  service: string;
  /** Requests handled at once by this process. */
  concurrency?: number;
  blockMs?: number;
  /** How often this replica refreshes its liveness key and looks for requests held by dead replicas. */
  livenessCheckMs?: number;
  /** A replica whose liveness key is older than this is dead. */
  livenessTtlMs?: number;
  /** Wraps each handler call, e.g. to bind the request id to the logger. */
  runInContext?: <T>(metadata: RpcMetadata, run: () => Promise<T>) => Promise<T>;
  /** Told of every request answered: its pattern, handling time and whether the answer was an error (metrics). */
  onHandled?: (pattern: string, seconds: number, failed: boolean) => void;
  /** False when tracing is off: no (no-op) span and no trace context read per request. Default true. */
  tracing?: boolean;
  /** Every pattern this service must answer: listening fails when one has no handler, or a handler has another. */
  servedPatterns?: readonly string[];
}

type Entry = [id: string, fields: string[]];

const tracer = trace.getTracer('@aas/transport');

/**
 * Answers requests and removes them from the request stream, atomically and in one command: the
 * answers of every request finished in one turn of the event loop go together. KEYS: the request
 * stream, then each answer's reply stream. ARGV: the consumer group, then per answer its entry id,
 * the number of its reply's fields and those fields. A reply stream belongs to one client
 * instance; it expires once that client is gone.
 */
const ANSWER_SCRIPT = `
local at = 2
local ids = {}
for i = 2, #KEYS do
  local count = tonumber(ARGV[at + 1])
  redis.call('XADD', KEYS[i], 'MAXLEN', '~', 10000, '*', unpack(ARGV, at + 2, at + 1 + count))
  redis.call('PEXPIRE', KEYS[i], 300000)
  ids[#ids + 1] = ARGV[at]
  at = at + 2 + count
end
redis.call('XACK', KEYS[1], ARGV[1], unpack(ids))
redis.call('XDEL', KEYS[1], unpack(ids))
`;

interface AnswerCommand {
  /** numberOfKeys, then the keys, then the arguments (see ANSWER_SCRIPT). */
  rpcAnswer(...keysAndArgs: (string | number)[]): Promise<unknown>;
}

/** An answer waiting for the end of this turn, when it leaves with the others. */
interface QueuedAnswer {
  entryId: string;
  replyTo: string;
  fields: string[];
  sent: { resolve: () => void; reject: (error: unknown) => void };
}

/**
 * Request/response over Redis Streams consumer groups. Nest's stock Redis
 * transport is pub/sub, which hands every request to every replica; a
 * consumer group hands each entry to exactly one consumer.
 */
export class RedisStreamsServer extends Server implements CustomTransportStrategy {
  private readonly streamKey: string;
  private readonly consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly inFlight = new Set<Promise<void>>();
  private reader?: Redis;
  private writer?: Redis;
  private closing = false;
  private consumeLoop?: Promise<void>;
  private livenessTimer?: NodeJS.Timeout;
  private queuedAnswers: QueuedAnswer[] = [];

  constructor(private readonly options: RedisStreamsServerOptions) {
    super();
    this.streamKey = requestStreamKey(options.prefix, options.service);
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      this.checkHandlers();
      this.reader = new Redis(this.options.url, { maxRetriesPerRequest: null, connectionName: `${this.consumer}-rpc-read` });
      this.writer = new Redis(this.options.url, { maxRetriesPerRequest: null, connectionName: `${this.consumer}-rpc-write` });
      this.reader.on('error', (err) => this.logger.warn?.(`rpc reader: ${err.message}`));
      this.writer.on('error', (err) => this.logger.warn?.(`rpc writer: ${err.message}`));
      this.writer.defineCommand('rpcAnswer', { lua: ANSWER_SCRIPT });
      await this.ensureGroup();
      await this.heartbeat();
      this.consumeLoop = this.consume();
      this.livenessTimer = setInterval(() => void this.checkLiveness(), this.options.livenessCheckMs ?? 1000);
      this.livenessTimer.unref();
      callback();
    } catch (error) {
      callback(error);
    }
  }

  /** Stops reading, lets requests already taken finish and reply, then disconnects. */
  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.livenessTimer);
    this.reader?.disconnect();
    await this.consumeLoop?.catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
    // Gone cleanly with nothing pending: the other replicas need not wait for the key to expire.
    await this.writer?.del(this.aliveKey(this.consumer)).catch(() => undefined);
    await this.writer?.quit().catch(() => undefined);
  }

  on(): void {
    throw new Error('RedisStreamsServer exposes no event listeners');
  }

  unwrap<T>(): T {
    return { reader: this.reader, writer: this.writer } as T;
  }

  /** Two handlers of one pattern would leave one of them silently unused: refused at start. */
  override addHandler(...args: Parameters<Server['addHandler']>): void {
    const [pattern, , isEventHandler] = args;
    if (!isEventHandler && this.messageHandlers.has(this.normalizePattern(pattern))) {
      throw new Error(`${this.options.service}: the message pattern ${this.normalizePattern(pattern)} has two handlers`);
    }
    super.addHandler(...args);
  }

  private checkHandlers(): void {
    if (!this.options.servedPatterns) return;
    const served = new Set(this.options.servedPatterns);
    const missing = [...served].filter((pattern) => !this.messageHandlers.has(pattern));
    const unknown = [...this.messageHandlers.keys()].filter((pattern) => !served.has(pattern));
    if (missing.length > 0) throw new Error(`${this.options.service}: no handler for ${missing.join(', ')}`);
    if (unknown.length > 0) throw new Error(`${this.options.service}: handlers for patterns it does not serve: ${unknown.join(', ')}`);
  }

  /**
   * Our patterns are plain strings, stored as the handlers' keys as they are; Nest's own look-up
   * first tries to parse every pattern as JSON (a thrown SyntaxError per request), so it is the fallback.
   */
  override getHandlerByPattern(pattern: string): ReturnType<Server['getHandlerByPattern']> {
    return this.messageHandlers.get(pattern) ?? super.getHandlerByPattern(pattern);
  }

  private async ensureGroup(): Promise<void> {
    try {
      // From id 0, so requests written while no replica was up are still served (if not past their deadline).
      await this.writer!.xgroup('CREATE', this.streamKey, this.options.service, '0', 'MKSTREAM');
    } catch (error) {
      if (!String((error as Error).message).includes('BUSYGROUP')) throw error;
    }
  }

  private async consume(): Promise<void> {
    const concurrency = this.options.concurrency ?? 64;
    while (!this.closing) {
      if (this.inFlight.size >= concurrency) {
        await Promise.race(this.inFlight);
        continue;
      }
      const entries = await this.readBatch(concurrency - this.inFlight.size);
      for (const [entryId, fields] of entries) this.track(this.handleEntry(entryId, fields));
    }
  }

  private async readBatch(count: number): Promise<Entry[]> {
    try {
      const result = (await this.reader!.xreadgroup(
        'GROUP', this.options.service, this.consumer,
        'COUNT', count, 'BLOCK', this.options.blockMs ?? 2000,
        'STREAMS', this.streamKey, '>',
      )) as [string, Entry[]][] | null;
      return result?.[0]?.[1] ?? [];
    } catch (error) {
      if (this.closing) return [];
      const message = (error as Error).message;
      this.logger.warn?.(`rpc read failed: ${message}`);
      if (message.includes('NOGROUP')) await this.ensureGroup().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 500));
      return [];
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async handleEntry(entryId: string, fields: string[]): Promise<void> {
    const request = decodeRequest(fields);
    let answer: WritePacket | undefined;
    try {
      if (request && Date.now() <= request.deadline) answer = await this.dispatch(request);
    } catch (error) {
      this.logger.error?.(`rpc ${request?.pattern} failed: ${(error as Error).message}`);
    }
    await this.finish(entryId, request && answer ? { request, packet: answer } : undefined);
  }

  /** Handles a request; resolves with the answer to send. */
  private async dispatch(request: RpcRequestEntry): Promise<WritePacket> {
    const handler = this.getHandlerByPattern(request.pattern);
    if (!handler) {
      return { err: problemFromCode(ProblemCode.ServiceUnavailable, `No handler for ${request.pattern}`), isDisposed: true };
    }
    const context = new StreamsRpcContext([request.pattern, request.metadata]);
    const started = performance.now();
    const run = () =>
      new Promise<WritePacket>((resolve, reject) => {
        let last: unknown;
        const handling: unknown = this.handleRequest(
          context,
          async () => this.transformToObservable(await handler(request.data, context)),
          (packet: WritePacket) => {
            if (!packet.isDisposed && !packet.err) {
              last = packet.response;
              return;
            }
            this.options.onHandled?.(request.pattern, (performance.now() - started) / 1000, Boolean(packet.err));
            resolve({ ...packet, response: packet.response !== undefined ? packet.response : last });
          },
        );
        // handleRequest returns the hook's promise, which rejects if the handler could not even be produced.
        void Promise.resolve(handling).catch(reject);
      });
    const runInContext = this.options.runInContext ?? ((_meta, fn) => fn());
    if (this.options.tracing === false) return runInContext(request.metadata, run);
    // A span per request, child of the caller's.
    const parent = propagation.extract(ROOT_CONTEXT, request.metadata);
    return tracer.startActiveSpan(request.pattern, { kind: SpanKind.SERVER, attributes: { 'rpc.system': 'redis-streams' } }, parent, (span) =>
      runInContext(request.metadata, run).finally(() => span.end()),
    );
  }

  /**
   * Sends the answer (if any) and removes the request from the stream, in one
   * script call: a request is never acknowledged unanswered.
   */
  private async finish(entryId: string, answer?: { request: RpcRequestEntry; packet: WritePacket }): Promise<void> {
    if (!answer) {
      await this.writer!.multi().xack(this.streamKey, this.options.service, entryId).xdel(this.streamKey, entryId).exec();
      return;
    }
    const fields = encodeReply(answer.request, answer.packet);
    await new Promise<void>((resolve, reject) => {
      if (this.queuedAnswers.length === 0) setImmediate(() => this.sendQueuedAnswers());
      this.queuedAnswers.push({ entryId, replyTo: answer.request.replyTo, fields, sent: { resolve, reject } });
    });
  }

  /** Under load many requests finish in one turn: their answers leave in one command, one round trip. */
  private sendQueuedAnswers(): void {
    const batch = this.queuedAnswers;
    this.queuedAnswers = [];
    const args: (string | number)[] = [this.options.service];
    for (const { entryId, fields } of batch) args.push(entryId, fields.length, ...fields);
    (this.writer as Redis & AnswerCommand)
      .rpcAnswer(1 + batch.length, this.streamKey, ...batch.map((answer) => answer.replyTo), ...args)
      .then(
        () => batch.forEach(({ sent }) => sent.resolve()),
        (error: unknown) => batch.forEach(({ sent }) => sent.reject(error)),
      );
  }

  private aliveKey(consumer: string): string {
    return consumerAliveKey(this.options.prefix, this.options.service, consumer);
  }

  private heartbeat(): Promise<unknown> {
    return this.writer!.set(this.aliveKey(this.consumer), '1', 'PX', this.options.livenessTtlMs ?? 5000);
  }

  private async checkLiveness(): Promise<void> {
    if (this.closing || !this.writer) return;
    try {
      await this.heartbeat();
      await this.answerForDeadReplicas();
    } catch (error) {
      this.logger.warn?.(`rpc liveness check failed: ${(error as Error).message}`);
    }
  }

  /**
   * Requests a dead replica took and never answered. Running them again could
   * apply a request twice (the replica may have died after its commit), so
   * they are answered 503 at once, saying so, instead of leaving the caller to
   * time out; the caller may retry (with an Idempotency-Key where it matters).
   */
  private async answerForDeadReplicas(): Promise<void> {
    const [, , , consumers] = (await this.writer!.xpending(this.streamKey, this.options.service)) as [
      number,
      string | null,
      string | null,
      [string, string][] | null,
    ];
    for (const [consumer] of consumers ?? []) {
      if (consumer === this.consumer || (await this.writer!.exists(this.aliveKey(consumer))) === 1) continue;
      const pending = (await this.writer!.xpending(this.streamKey, this.options.service, '-', '+', 100, consumer)) as [string, ...unknown[]][];
      const ids = pending.map(([id]) => id);
      if (ids.length === 0) continue;
      // Claiming is atomic: when two live replicas find the same dead one, each entry goes to one of them.
      const claimed = (await this.writer!.xclaim(this.streamKey, this.options.service, this.consumer, 0, ...ids)) as Entry[];
      for (const [entryId, fields] of claimed) this.track(this.answerAbandoned(entryId, fields, consumer));
      if (pending.length < 100) await this.writer!.xgroup('DELCONSUMER', this.streamKey, this.options.service, consumer);
    }
  }

  private async answerAbandoned(entryId: string, fields: string[], consumer: string): Promise<void> {
    const request = decodeRequest(fields);
    if (!request || Date.now() > request.deadline) return this.finish(entryId);
    const detail = `The ${this.options.service} replica that took this request stopped before answering; it may or may not have been applied`;
    await this.finish(entryId, { request, packet: { err: problemFromCode(ProblemCode.ServiceUnavailable, detail), isDisposed: true } });
    this.logger.warn?.(`rpc ${request.pattern} taken by ${consumer}, which stopped, answered 503`);
  }
}
