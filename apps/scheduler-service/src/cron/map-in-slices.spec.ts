import { mapInSlices } from './map-in-slices';

describe(mapInSlices.name, () => {
  const busy = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  it('maps every item in order', async () => {
    expect(await mapInSlices([1, 2, 3], (n) => n * 2)).toEqual([2, 4, 6]);
    expect(await mapInSlices([], (n: number) => n)).toEqual([]);
  });

  it('lets the event loop run between slices of a long batch', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      // 30 items of 5 ms with 10 ms slices: the loop gets a turn at least every few items.
      await mapInSlices(Array.from({ length: 30 }, (_, i) => i), () => busy(5), 10);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThanOrEqual(5);
  });

  it('does not yield while a batch fits in one slice', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      await mapInSlices([1, 2, 3], (n) => n, 1000);
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBe(0);
  });
});
