import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** How long one slice of synchronous work may hold the event loop before it yields. */
export const SLICE_MS = 20;

/**
 * Cuts a long run of synchronous work (evaluating hundreds of cron expressions,
 * each bounded but not free) into slices: `next()` yields to the event loop
 * once the current slice has run for `sliceMs`, so requests, lock renewals and
 * health checks of this process keep being served.
 */
export class EventLoopSlices {
  private sliceStart = performance.now();

  constructor(private readonly sliceMs = SLICE_MS) {}

  async next(): Promise<void> {
    if (performance.now() - this.sliceStart < this.sliceMs) return;
    await yieldToEventLoop();
    this.sliceStart = performance.now();
  }
}

/** Maps items in order, in slices of at most `sliceMs` (plus one item). */
export async function mapInSlices<T, R>(items: readonly T[], map: (item: T) => R, sliceMs = SLICE_MS): Promise<R[]> {
  const slices = new EventLoopSlices(sliceMs);
  const results: R[] = [];
  for (const item of items) {
    await slices.next();
    results.push(map(item));
  }
  return results;
}
