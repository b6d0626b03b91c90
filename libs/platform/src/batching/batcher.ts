import { settleSplitting } from './split-on-failure';

export interface BatcherOptions {
  /** Most items one call of the batch function gets. */
  maxBatchSize: number;
  /** Batches in flight at once; items submitted meanwhile wait and go together in the next one. */
  maxConcurrentBatches: number;
  /**
   * Whether a failed batch of several items is run again in halves, down to single items
   * (`settleSplitting`), so that one bad item fails only its own caller. Say yes only for errors after
   * which running the items again is safe (the batch certainly had no effect, or its items are idempotent).
   */
  retryItemsAlone?: (error: unknown) => boolean;
  /**
   * How long an item that finds nothing waiting and no batch in flight waits for company (0: it goes
   * out in the next turn of the event loop). Items arriving while batches run never wait on it.
   */
  lingerMs?: number;
}

interface Waiter<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

/**
 * Turns many concurrent single-item calls into few batch calls, as group commit does: items submitted
 * in the same turn of the event loop, or while the batches in flight run, go together in one call.
 * Unless `lingerMs` is set, nothing waits on a timer, so a lone item goes out at once. Each caller's promise settles only when
 * the batch holding its item has settled, with that item's result or with the batch's error.
 */
export class Batcher<I, O> {
  private waiting: Waiter<I, O>[] = [];
  private running = 0;
  private scheduled = false;

  /** `run` answers with one result per item, in the order of the items. */
  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: BatcherOptions,
  ) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.waiting.length >= this.options.maxBatchSize) return this.pump();
      if (!this.scheduled) {
        this.scheduled = true;
        const linger = this.running === 0 ? (this.options.lingerMs ?? 0) : 0;
        // Lets every job that resumes in this turn (or, lingering, in the next few ms) add its item first.
        const go = () => {
          this.scheduled = false;
          this.pump();
        };
        if (linger > 0) setTimeout(go, linger);
        else setImmediate(go);
      }
    });
  }

  private pump(): void {
    while (this.running < this.options.maxConcurrentBatches && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.options.maxBatchSize);
      this.running += 1;
      void this.settle(batch).finally(() => {
        this.running -= 1;
        this.pump();
      });
    }
  }

  private async settle(batch: Waiter<I, O>[]): Promise<void> {
    const settled = await settleSplitting(
      batch.map((w) => w.item),
      this.run,
      this.options.retryItemsAlone ?? (() => false),
    );
    batch.forEach((w, i) => {
      const result = settled[i];
      if ('value' in result) w.resolve(result.value);
      else w.reject(result.error);
    });
  }
}
