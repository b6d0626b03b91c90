import { restartDelayMs } from './stdio-mcp-server';

describe(restartDelayMs.name, () => {
  it('waits 1 s before the first restart, doubling each time, never more than 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(restartDelayMs)).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });
});
