import { CachedResult } from './cached-result';

describe(CachedResult.name, () => {
  let clock = 0;
  let loads = 0;
  const sut = () => new CachedResult(1000, async () => ++loads, () => clock);

  beforeEach(() => {
    clock = 0;
    loads = 0;
  });

  it('shares one computation among callers within the period, concurrent ones included', async () => {
    const cached = sut();
    const results = await Promise.all([cached.get(), cached.get(), cached.get()]);
    clock = 999;
    results.push(await cached.get());
    expect(results).toEqual([1, 1, 1, 1]);
    expect(loads).toBe(1);
  });

  it('computes again once the period is over', async () => {
    const cached = sut();
    await cached.get();
    clock = 1000;
    expect(await cached.get()).toBe(2);
    clock = 1500;
    expect(await cached.get()).toBe(2);
  });
});
