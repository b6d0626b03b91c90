import { context, propagation } from '@opentelemetry/api';
import { randomUUID } from 'node:crypto';
import { ClientProxy, ReadPacket, WritePacket } from '@nestjs/microservices';
import { GatewayTimeoutError, ServiceUnavailableError, toProblem } from '@aas/problem-details';
import Redis from 'ioredis';
import { Observable, defer, mergeMap } from 'rxjs';
import { RpcMetadata, decodeReply, encodeRequest } from './rpc-message';
import { replyStreamKey, requestStreamKey, serviceOfPattern } from './stream-keys';
import { holdWritesForThisTurn } from './write-coalescing';

export interface RedisStreamsClientOptions {
  url: string;
  prefix: string;
  /** How long a caller waits for a reply before it answers 504. */
  timeoutMs?: number;
  /** Requests kept per service stream; older entries are trimmed. */
  maxStreamLength?: number;
}

interface PendingReply {
  callback: (packet: WritePacket) => void;
  timer: NodeJS.Timeout;
  /** The caller takes the response as JSON text, unparsed. */
  asJson: boolean;
}

/** A request as this client sends it: `asJson` asks for the response as JSON text, unparsed. */
export type StreamsReadPacket = ReadPacket & { metadata?: RpcMetadata; asJson?: boolean };

type Entry = [id: string, fields: string[]];

const REPLY_TRIM_INTERVAL_MS = 250;

/** The calling side of RedisStreamsServer: one reply stream per client instance, correlated by request id. */
export class RedisStreamsClient extends ClientProxy {
  private readonly clientId = randomUUID();
  private readonly replyKey: string;
  private readonly pending = new Map<string, PendingReply>();
  private writer?: Redis;
  private reader?: Redis;
  private connecting?: Promise<void>;
  private readLoop?: Promise<void>;
  private closed = false;

  constructor(private readonly options: RedisStreamsClientOptions) {
    super();
    this.replyKey = replyStreamKey(options.prefix, this.clientId);
  }

  connect(): Promise<void> {
    this.connecting ??= this.open();
    return this.connecting;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.reader?.disconnect();
    await this.readLoop?.catch(() => undefined);
    await this.writer?.quit().catch(() => undefined);
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.callback({ err: toProblem(new ServiceUnavailableError('Client closed')), isDisposed: true });
      this.pending.delete(id);
    }
  }

  unwrap<T>(): T {
    return { reader: this.reader, writer: this.writer } as T;
  }

  /**
   * Like `send`, with metadata (the request id) carried beside the payload. With `asJson`, the
   * response comes as the service's JSON text, to be passed on without a parse.
   */
  request<TResult>(pattern: string, data: unknown, metadata: RpcMetadata = {}, asJson = false): Observable<TResult> {
    return defer(() => this.connect()).pipe(
      mergeMap(
        () =>
          new Observable<TResult>((observer) => {
            const callback = this.createObserver(observer);
            return this.publish({ pattern, data, metadata, asJson } as StreamsReadPacket, callback);
          }),
      ),
    );
  }

  /**
   * `request` as a promise, without the Observable pipeline (the gateway's hot path): resolves with
   * the response (null when there is none), rejects with the service's Problem Details.
   */
  async call<TResult>(pattern: string, data: unknown, metadata: RpcMetadata = {}, asJson = false): Promise<TResult> {
    await this.connect();
    return new Promise<TResult>((resolve, reject) => {
      const settle = ({ err, response }: WritePacket) => (err ? reject(err) : resolve((response ?? null) as TResult));
      this.publish({ pattern, data, metadata, asJson } as StreamsReadPacket, settle);
    });
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    const id = randomUUID();
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const pattern = this.normalizePattern(packet.pattern);
    const timer = setTimeout(() => {
      this.settle(id, { err: toProblem(new GatewayTimeoutError(`No reply to ${pattern} within ${timeoutMs} ms`)) });
    }, timeoutMs);
    const { metadata: given, asJson = false } = packet as StreamsReadPacket;
    this.pending.set(id, { callback, timer, asJson });

    const metadata: RpcMetadata = { ...given };
    // The caller's trace continues in the service (a no-op unless tracing is on).
    propagation.inject(context.active(), metadata);
    const fields = encodeRequest({
      id,
      pattern,
      data: packet.data,
      metadata,
      replyTo: this.replyKey,
      deadline: Date.now() + timeoutMs,
      replyFormat: 'fields',
    });
    if (this.writer?.status !== 'ready') {
      this.settle(id, { err: toProblem(new ServiceUnavailableError('Message bus (Redis) is not reachable')) });
      return () => this.forget(id);
    }
    const stream = requestStreamKey(this.options.prefix, serviceOfPattern(pattern));
    holdWritesForThisTurn(this.writer);
    this.writer
      .xadd(stream, 'MAXLEN', '~', this.options.maxStreamLength ?? 100_000, '*', ...fields)
      .catch((error: Error) => {
        this.settle(id, { err: toProblem(new ServiceUnavailableError(`Message bus unavailable: ${error.message}`)) });
      });

    return () => this.forget(id);
  }

  protected dispatchEvent(): Promise<never> {
    return Promise.reject(new Error('Events travel over BullMQ queues, not the request transport'));
  }

  private async open(): Promise<void> {
    // No offline queue: while Redis is down a request fails at once (503) instead of waiting for its timeout.
    this.writer = new Redis(this.options.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.reader = new Redis(this.options.url, { maxRetriesPerRequest: null });
    this.writer.on('error', () => undefined);
    this.reader.on('error', () => undefined);
    this.readLoop = this.readReplies();
    // Give a starting process a moment to reach Redis; after that a request fails fast with 503 while Redis is away.
    await Promise.race([waitReady(this.writer), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
  }

  private async readReplies(): Promise<void> {
    let lastId = '0';
    let trimmedAt = 0;
    while (!this.closed) {
      let result: [string, Entry[]][] | null;
      try {
        result = (await this.reader!.xread('COUNT', 500, 'BLOCK', 2000, 'STREAMS', this.replyKey, lastId)) as
          | [string, Entry[]][]
          | null;
      } catch {
        if (this.closed) return;
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      const entries = result?.[0]?.[1] ?? [];
      for (const [entryId, fields] of entries) {
        lastId = entryId;
        this.deliver(fields);
      }
      // Replies read are dropped now and then rather than after every read: a round trip saved per read under load.
      if (entries.length > 0 && Date.now() - trimmedAt >= REPLY_TRIM_INTERVAL_MS) {
        trimmedAt = Date.now();
        void this.writer!.xtrim(this.replyKey, 'MINID', lastId).catch(() => undefined);
      }
    }
  }

  private deliver(fields: string[]): void {
    const reply = decodeReply(fields);
    const pending = reply && this.pending.get(reply.id);
    if (!pending) return;
    if (reply.err !== undefined) return this.settle(reply.id, { err: reply.err });
    const json = reply.responseJson!;
    if (pending.asJson) return this.settle(reply.id, { response: json });
    try {
      this.settle(reply.id, { response: JSON.parse(json) ?? undefined });
    } catch {
      // Not thrown on: the read loop serves every other caller's reply.
      this.settle(reply.id, { err: toProblem(new ServiceUnavailableError(`Malformed reply to request ${reply.id}`)) });
    }
  }

  private settle(id: string, packet: Omit<WritePacket, 'isDisposed'>): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.forget(id);
    pending.callback({ ...packet, isDisposed: true });
  }

  private forget(id: string): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
  }
}

function waitReady(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}
