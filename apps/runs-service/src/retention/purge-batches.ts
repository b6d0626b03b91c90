import { setTimeout as sleep } from 'node:timers/promises';
import { PurgedBatch } from './retention.store';

/** What a purge deleted. */
export interface PurgeTotals {
  runs: number;
  events: number;
}

export interface BatchPacing {
  batchSize: number;
  /** The pause between two batches, so that a purge never takes the database from the requests for long. */
  pauseMs: number;
  /** Asked between batches: true ends the purge there (a shutdown). */
  stop: () => boolean;
}

/**
 * Runs `batch` (one short transaction each) until one comes back short or `stop` says so, pausing between
 * batches; adds what each deleted to `totals`. Answers whether the last batch came back short (nothing left
 * that it could take).
 */
export async function purgeInBatches(batch: () => Promise<PurgedBatch>, pacing: BatchPacing, totals: PurgeTotals): Promise<boolean> {
  for (;;) {
    const { runIds, events } = await batch();
    totals.runs += runIds.length;
    totals.events += events;
    if (runIds.length < pacing.batchSize) return true;
    if (pacing.stop()) return false;
    if (pacing.pauseMs > 0) await sleep(pacing.pauseMs);
  }
}
