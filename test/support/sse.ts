import { EventSourceMessage, createParser } from 'eventsource-parser';

/** A Server-Sent Events response read as it arrives: its events so far, and whether (and how) it ended. */
export class SseStream {
  readonly events: EventSourceMessage[] = [];
  /** Resolves when the server ends the response (with or without `end`); rejects never. */
  readonly done: Promise<void>;
  endedAt?: number;
  private readonly abort = new AbortController();

  private constructor(
    readonly status: number,
    readonly body: string | undefined,
    reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
  ) {
    this.done = reader ? this.pump(reader) : Promise.resolve();
  }

  static async open(url: string, headers: Record<string, string>): Promise<SseStream> {
    const abort = new AbortController();
    const response = await fetch(url, { headers, signal: abort.signal });
    if (!response.ok) return new SseStream(response.status, await response.text(), undefined);
    const stream = new SseStream(response.status, undefined, response.body!.getReader());
    stream.abort.signal.addEventListener('abort', () => abort.abort());
    return stream;
  }

  get runEvents(): Array<{ index: number; data: { event_index: number; event: Record<string, unknown> } }> {
    return this.events.filter((e) => e.event === 'run_event').map((e) => ({ index: Number(e.id), data: JSON.parse(e.data) }));
  }

  get finished(): boolean {
    return this.events.some((e) => e.event === 'end');
  }

  /** Waits until `ok` holds of the stream (checked every 20 ms), for at most `ms`. */
  async until(what: string, ok: (stream: SseStream) => boolean, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ok(this)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(this.events.slice(-5))}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): void {
    this.abort.abort();
  }

  private async pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const parser = createParser({ onEvent: (event) => this.events.push(event) });
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by close()
    }
    this.endedAt = Date.now();
  }
}
