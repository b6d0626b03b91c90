import { reorderPositions } from './workspace-order';

describe(reorderPositions.name, () => {
  const positionsOf = (result: Map<string, number>) => [...result.entries()].sort((a, b) => a[1] - b[1]).map(([id]) => id);

  it('puts the requested ids first, in the requested order', () => {
    expect(positionsOf(reorderPositions(['a', 'b', 'c'], ['c', 'a', 'b']))).toEqual(['c', 'a', 'b']);
  });

  it('keeps unmentioned workspaces after them, in their previous order', () => {
    expect(positionsOf(reorderPositions(['a', 'b', 'c', 'd'], ['d', 'b']))).toEqual(['d', 'b', 'a', 'c']);
  });

  it('gives contiguous positions from 0', () => {
    expect([...reorderPositions(['a', 'b', 'c'], ['b']).values()].sort()).toEqual([0, 1, 2]);
  });
});
