import { RunEventItem, RunEventPush, RunEventsResponse, RunStreamHead } from '@aas/contracts';
import type { ServerResponse } from 'node:http';
import { PushListener } from './run-event-hub';

/** Events read from runs-service at a time. */
export const STREAM_PAGE = 500;
/** A comment line after this long without a write keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
/** A client that has not read a page of backlog within this long is not reading. */
const DRAIN_TIMEOUT_MS = 15_000;

export interface StreamTarget {
  userId: string;
  agentId: string;
  runId: string;
  requestId: string;
}

/** The credential a stream was opened with: its revocation, or its session's end, ends the stream. */
export interface StreamOwner {
  userId: string;
  keyId?: string;
  keyHash?: string;
  sessionId?: string;
  sessionTokenHash?: string;
  /** Epoch ms at which the console session expires. */
  sessionExpiresAt?: number;
}

export interface LiveStreamHost {
  /** A page of the run's events after `after` (exclusive), from runs-service. */
  read(target: StreamTarget, after: number | undefined): Promise<RunEventsResponse>;
  readonly bufferLimit: number;
  closed(stream: LiveStream, why: string): void;
}

/**
 * One client's stream of a run's events. Pushed events are written as they come when they follow the
 * last one written; a gap (a push lost, or one sent without its body) is read back from runs-service
 * by index, so nothing is skipped and nothing written twice. Pushes that arrive while a read is under
 * way wait in `ahead`. The stream ends with `end` once the event that finished the run was written.
 */
export class LiveStream implements PushListener {
  /** The index of the last event written (or of Last-Event-ID); -1 before the first. */
  private last: number;
  /** The index of the event that finished the run, once known. */
  private finishedAt?: number;
  /** Pushed events after `last`, by index (null: pushed without its body). */
  private readonly ahead = new Map<number, RunEventItem | null>();
  private out?: ServerResponse;
  private reading = false;
  private readAgain = false;
  private ended = false;
  lastWriteAt = Date.now();

  constructor(
    readonly target: StreamTarget,
    readonly owner: StreamOwner,
    after: number | undefined,
    private readonly host: LiveStreamHost,
  ) {
    this.last = after ?? -1;
  }

  get isClosed(): boolean {
    return this.ended;
  }

  get lastIndex(): number {
    return this.last;
  }

  pushed(push: RunEventPush): void {
    if (this.ended) return;
    if ('gone' in push) return this.close('run deleted');
    if (push.finished) this.finishedAt = push.index;
    if (push.index <= this.last) return;
    this.ahead.set(push.index, push.item ?? null);
    this.advance();
  }

  /**
   * Starts writing to `out` (headers sent): `first` is the first page after Last-Event-ID, read once the
   * run's channel was subscribed, so an event is either in it or pushed after it. `finishedAt` when the
   * run had finished by then.
   */
  start(out: ServerResponse, first: RunEventsResponse, finishedAt: number | undefined): void {
    this.out = out;
    if (this.ended) {
      out.end();
      return;
    }
    out.on('close', () => this.close('client closed'));
    if (finishedAt !== undefined) this.finishedAt = finishedAt;
    void this.catchUp(first);
  }

  /** Where the periodic check found the run; undefined: gone for this caller (deleted, its agent deleted). */
  checked(head: RunStreamHead | undefined): void {
    if (this.ended || !this.out) return;
    if (!head) return this.close('run gone');
    if (head.is_finished) this.finishedAt = head.event_count - 1;
    if (head.event_count - 1 > this.last) void this.catchUp();
    else this.endIfDone();
  }

  /** Every few seconds: a keep-alive when idle, and the end of an expired console session. */
  tick(now: number): void {
    if (this.ended || !this.out) return;
    if (this.owner.sessionExpiresAt !== undefined && now >= this.owner.sessionExpiresAt) return this.close('session expired');
    if (now - this.lastWriteAt >= HEARTBEAT_MS) this.send(': keep-alive\n\n');
  }

  /** Ends the stream without `end` (the client reconnects, and is answered 401 or 404 if that is why). */
  close(why: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.out && !this.out.writableEnded) this.out.end();
    this.host.closed(this, why);
  }

  /** Writes the pushed events that follow the last one written; reads when one is missing. */
  private advance(): void {
    if (this.reading || !this.out || this.ended) return;
    for (let next = this.ahead.get(this.last + 1); next; next = this.ahead.get(this.last + 1)) {
      this.ahead.delete(this.last + 1);
      this.write(next);
      if (this.ended) return;
    }
    for (const index of this.ahead.keys()) if (index <= this.last) this.ahead.delete(index);
    if (this.ahead.size > 0) void this.catchUp();
    else this.endIfDone();
  }

  /**
   * Writes the backlog after `last` (`first`, then pages read from runs-service) at the pace the client reads
   * it, then goes on with what was pushed meanwhile.
   */
  private async catchUp(first?: RunEventsResponse): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    const before = this.last;
    let page = first;
    try {
      do {
        this.readAgain = false;
        for (;;) {
          page ??= await this.host.read(this.target, this.last < 0 ? undefined : this.last);
          if (this.ended) return;
          for (const item of page.events) {
            if (item.event_index !== this.last + 1) continue;
            if (this.out!.writableLength >= this.host.bufferLimit / 2 && !(await this.drained())) return this.close('client not reading');
            if (this.ended) return;
            this.write(item);
          }
          if (this.ended || page.events.length < STREAM_PAGE) break;
          page = undefined;
        }
        page = undefined;
      } while (this.readAgain && !this.ended);
    } catch {
      // Deleted meanwhile (404) or runs-service unreachable: the client reconnects with Last-Event-ID.
      return this.close('reading the run failed');
    } finally {
      this.reading = false;
    }
    for (const index of this.ahead.keys()) if (index <= this.last) this.ahead.delete(index);
    // A push not yet readable when the read began is written now; no progress at all waits for the next push or check.
    if (this.ahead.has(this.last + 1) || (this.ahead.size > 0 && this.last > before)) this.advance();
    else this.endIfDone();
  }

  private endIfDone(): void {
    if (this.ended || this.finishedAt === undefined || this.last < this.finishedAt) return;
    this.send('event: end\ndata: {}\n\n');
    this.close('run finished');
  }

  private write(item: RunEventItem): void {
    this.send(`id: ${item.event_index}\nevent: run_event\ndata: ${JSON.stringify(item)}\n\n`);
    this.last = item.event_index;
  }

  /** A client that lets more than STREAM_BUFFER_BYTES pile up is not reading: it is disconnected. */
  private send(chunk: string): void {
    const out = this.out!;
    if (this.ended || out.writableEnded || out.destroyed) return;
    out.write(chunk);
    this.lastWriteAt = Date.now();
    if (out.writableLength > this.host.bufferLimit) {
      out.destroy();
      this.close('client not reading');
    }
  }

  /** Waits until what was written has gone out; false when the client does not read within DRAIN_TIMEOUT_MS. */
  private drained(): Promise<boolean> {
    const out = this.out!;
    if (!out.writableNeedDrain) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        out.off('drain', onDrain);
        out.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      const timer = setTimeout(() => {
        out.destroy();
        done(false);
      }, DRAIN_TIMEOUT_MS);
      out.once('drain', onDrain);
      out.once('close', onClose);
    });
  }
}
