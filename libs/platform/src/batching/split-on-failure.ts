import { RemoteProblemError } from '@aas/problem-details';

/** One item's result, or why it failed. */
export type Settled<O> = { value: O } | { error: unknown };

/**
 * Runs `items` as one batch. When the batch fails as a whole with an error `splitOn` accepts, each half
 * runs again (in parallel), and so on down to single items: one bad item fails only itself, after about
 * 2·log2(n) more calls, and k bad items after about 2·k·log2(n). Say yes in `splitOn` only for errors
 * after which running the items again is safe (the batch had no effect, or its items are idempotent).
 * An error `splitOn` refuses fails every item of the batch it ended.
 */
export async function settleSplitting<I, O>(
  items: I[],
  run: (items: I[]) => Promise<O[]>,
  splitOn: (error: unknown) => boolean,
): Promise<Settled<O>[]> {
  if (items.length === 0) return [];
  try {
    const results = await run(items);
    if (results.length !== items.length) throw new Error(`batch of ${items.length} answered with ${results.length} results`);
    return results.map((value) => ({ value }));
  } catch (error) {
    if (items.length === 1 || !splitOn(error)) return items.map(() => ({ error }));
    const middle = Math.ceil(items.length / 2);
    const halves = await Promise.all([settleSplitting(items.slice(0, middle), run, splitOn), settleSplitting(items.slice(middle), run, splitOn)]);
    return halves.flat();
  }
}

/**
 * A service refused a batch request as a whole: its message did not validate (400), or handling it
 * failed (500, e.g. a value PostgreSQL refused rolled the batch's transaction back). Either way one of
 * its items may be to blame, and the rest may go through alone. Outages (503) and timeouts (504) are
 * not: splitting would only multiply the requests to a service that is not answering.
 */
export function refusedWhole(error: unknown): boolean {
  return error instanceof RemoteProblemError && (error.problem.status === 400 || error.problem.status === 500);
}
