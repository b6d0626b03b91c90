import { RemoteProblemError, problemFromCode, ProblemCode } from '@aas/problem-details';
import { refusedWhole, settleSplitting } from './split-on-failure';

/** A batch function that fails whole while any bad item is in the batch, as a transaction PostgreSQL rolls back does. */
function poisonable(bad: Set<number>) {
  const calls: number[][] = [];
  const run = async (items: number[]) => {
    calls.push(items);
    if (items.some((n) => bad.has(n))) throw new Error(`refused: ${items.filter((n) => bad.has(n)).join()}`);
    return items.map((n) => n * 10);
  };
  return { calls, run };
}

describe(settleSplitting.name, () => {
  const always = () => true;

  it('answers a batch that goes through in one call', async () => {
    const { calls, run } = poisonable(new Set());
    expect(await settleSplitting([1, 2, 3], run, always)).toEqual([{ value: 10 }, { value: 20 }, { value: 30 }]);
    expect(calls).toHaveLength(1);
  });

  it('fails only the bad item of a failed batch, in about 2·log2(n) more calls', async () => {
    const items = Array.from({ length: 500 }, (_, i) => i);
    const { calls, run } = poisonable(new Set([137]));
    const settled = await settleSplitting(items, run, always);
    expect(settled.filter((s) => 'error' in s)).toEqual([{ error: new Error('refused: 137') }]);
    expect(settled[136]).toEqual({ value: 1360 });
    expect(calls.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(500)));
  });

  it('fails each bad item alone when several are bad', async () => {
    const { run } = poisonable(new Set([0, 7, 8]));
    const settled = await settleSplitting(Array.from({ length: 10 }, (_, i) => i), run, always);
    expect(settled.map((s) => 'error' in s)).toEqual([true, false, false, false, false, false, false, true, true, false]);
  });

  it('fails every item, without splitting, on an error it is not told to split on', async () => {
    const { calls, run } = poisonable(new Set([1]));
    const settled = await settleSplitting([1, 2, 3], run, () => false);
    expect(settled.every((s) => 'error' in s)).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('takes an answer with the wrong number of results as a failure of the batch', async () => {
    const settled = await settleSplitting([1, 2], async () => [1], () => false);
    expect(settled).toEqual([{ error: expect.any(Error) }, { error: expect.any(Error) }]);
  });
});

describe(refusedWhole.name, () => {
  const remote = (code: ProblemCode) => new RemoteProblemError(problemFromCode(code, 'x'));

  it('splits on a batch request a service refused (400) or failed to handle (500), not on outages and timeouts', () => {
    expect(refusedWhole(remote(ProblemCode.ValidationFailed))).toBe(true);
    expect(refusedWhole(remote(ProblemCode.Internal))).toBe(true);
    expect(refusedWhole(remote(ProblemCode.ServiceUnavailable))).toBe(false);
    expect(refusedWhole(remote(ProblemCode.GatewayTimeout))).toBe(false);
    expect(refusedWhole(new Error('socket hang up'))).toBe(false);
  });
});
