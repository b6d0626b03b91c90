import { Batcher, BatcherOptions } from './batcher';

/** A batch function whose calls the test finishes by hand. */
function controlledRun<I, O>(answer: (item: I) => O) {
  const calls: { items: I[]; finish(): void; fail(error: unknown): void }[] = [];
  const run = (items: I[]) =>
    new Promise<O[]>((resolve, reject) => {
      calls.push({ items, finish: () => resolve(items.map(answer)), fail: reject });
    });
  return { calls, run };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function sutWith<I, O>(run: (items: I[]) => Promise<O[]>, options: Partial<BatcherOptions> = {}) {
  return new Batcher<I, O>(run, { maxBatchSize: 100, maxConcurrentBatches: 1, ...options });
}

describe(Batcher.name, () => {
  it('sends the items submitted in one turn as one batch and gives each caller its own result', async () => {
    const { calls, run } = controlledRun((n: number) => n * 10);
    const sut = sutWith(run);

    const results = Promise.all([sut.submit(1), sut.submit(2), sut.submit(3)]);
    await nextTurn();
    expect(calls.map((c) => c.items)).toEqual([[1, 2, 3]]);
    calls[0].finish();

    expect(await results).toEqual([10, 20, 30]);
  });

  it('sends a lone item at once, without waiting for company', async () => {
    const sut = sutWith(async (items: string[]) => items.map((s) => s.toUpperCase()));
    expect(await sut.submit('a')).toBe('A');
  });

  it('keeps a caller waiting until its own batch has finished', async () => {
    const { calls, run } = controlledRun((n: number) => n);
    const sut = sutWith(run);
    let settled = false;
    void sut.submit(1).then(() => (settled = true));

    await nextTurn();
    await nextTurn();
    expect(settled).toBe(false);
    calls[0].finish();
    await nextTurn();
    expect(settled).toBe(true);
  });

  it('gathers what arrives while batches are in flight into the next batch', async () => {
    const { calls, run } = controlledRun((n: number) => n);
    const sut = sutWith(run, { maxConcurrentBatches: 1 });

    const first = sut.submit(1);
    await nextTurn();
    const later = [sut.submit(2), sut.submit(3)];
    await nextTurn();
    const evenLater = sut.submit(4);
    await nextTurn();
    expect(calls.map((c) => c.items)).toEqual([[1]]);

    calls[0].finish();
    await first;
    await nextTurn();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1].finish();
    expect(await Promise.all([...later, evenLater])).toEqual([2, 3, 4]);
  });

  it('splits at the batch size and runs up to the allowed batches at once', async () => {
    const { calls, run } = controlledRun((n: number) => n);
    const sut = sutWith(run, { maxBatchSize: 2, maxConcurrentBatches: 2 });

    const all = Promise.all([1, 2, 3, 4, 5].map((n) => sut.submit(n)));
    await nextTurn();
    expect(calls.map((c) => c.items)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    calls[1].finish();
    await nextTurn();
    expect(calls.map((c) => c.items)).toEqual([[1, 2], [3, 4], [5]]);
    calls[0].finish();
    calls[2].finish();
    expect(await all).toEqual([1, 2, 3, 4, 5]);
  });

  it("fails every caller of a failed batch with the batch's error", async () => {
    const { calls, run } = controlledRun((n: number) => n);
    const sut = sutWith(run);
    const boom = new Error('connection lost');

    const outcomes = Promise.allSettled([sut.submit(1), sut.submit(2)]);
    await nextTurn();
    calls[0].fail(boom);

    expect(await outcomes).toEqual([
      { status: 'rejected', reason: boom },
      { status: 'rejected', reason: boom },
    ]);
    expect(calls).toHaveLength(1);
  });

  it('runs the items of a batch one by one when told to, so a bad item fails only its own caller', async () => {
    const bad = new Error('rejected: item 2');
    const run = async (items: number[]) => {
      if (items.includes(2)) throw bad;
      return items;
    };
    const sut = sutWith(run, { retryItemsAlone: (error) => error === bad });

    expect(await Promise.allSettled([1, 2, 3].map((n) => sut.submit(n)))).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: bad },
      { status: 'fulfilled', value: 3 },
    ]);
  });

  it('rejects everyone when the batch function answers with the wrong number of results', async () => {
    const sut = sutWith(async () => [1]);
    const outcomes = await Promise.allSettled([sut.submit(1), sut.submit(2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });

  describe('with lingerMs', () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

    it('lets an item that finds the batcher idle wait for the items arriving during the linger', async () => {
      const { calls, run } = controlledRun((n: number) => n);
      const sut = sutWith(run, { lingerMs: 40 });
      void sut.submit(1);
      await sleep(10);
      void sut.submit(2);
      expect(calls).toHaveLength(0);
      await sleep(60);
      expect(calls.map((c) => c.items)).toEqual([[1, 2]]);
    });

    it('sends a full batch without lingering', async () => {
      const { calls, run } = controlledRun((n: number) => n);
      const sut = sutWith(run, { lingerMs: 10_000, maxBatchSize: 2 });
      void sut.submit(1);
      void sut.submit(2);
      await nextTurn();
      expect(calls.map((c) => c.items)).toEqual([[1, 2]]);
    });

    it('does not make items that arrive while a batch runs linger after it', async () => {
      const { calls, run } = controlledRun((n: number) => n);
      const sut = sutWith(run, { lingerMs: 30 });
      void sut.submit(1);
      await sleep(50);
      void sut.submit(2);
      calls[0].finish();
      await nextTurn();
      await nextTurn();
      expect(calls.map((c) => c.items)).toEqual([[1], [2]]);
    });
  });
});
