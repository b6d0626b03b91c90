import { LimitedStart, RunStartLimits } from './run-start-limits';

const [ALICE, BOB] = ['alice', 'bob'];
const ROOT = 'root-run';

describe(RunStartLimits.name, () => {
  const same = (start: LimitedStart) => start;
  const reasons = (sut: RunStartLimits, starts: LimitedStart[], waiting = new Map<string, number>(), started = new Map<string, number>()) => {
    const { refused, chainRuns } = sut.judge(starts, same, waiting, started);
    return { refused: starts.map((s) => refused.get(s)?.quota ?? null), chainRuns: Object.fromEntries(chainRuns) };
  };

  it('lets a user queue up to waiting_runs_per_user runs, counting those already waiting and the batch, and refuses the rest naming the quota', () => {
    const sut = new RunStartLimits(3, 0);
    const starts = [{ userId: ALICE }, { userId: ALICE }, { userId: BOB }, { userId: ALICE }];
    expect(reasons(sut, starts, new Map([[ALICE, 1]])).refused).toEqual([null, null, null, 'waiting_runs_per_user']);
    const { refused } = sut.judge([{ userId: ALICE }], same, new Map([[ALICE, 3]]), new Map());
    expect([...refused.values()][0]).toMatchObject({ quota: 'waiting_runs_per_user', limit: 3, message: expect.stringMatching(/3 runs waiting/) });
  });

  it('lets a chain start up to trigger_chain_runs runs besides its root, and counts what it takes', () => {
    const sut = new RunStartLimits(0, 5);
    const starts = [{ userId: ALICE, chainRootId: ROOT }, { userId: BOB, chainRootId: ROOT }, { userId: ALICE, chainRootId: ROOT }, { userId: ALICE }];
    expect(reasons(sut, starts, new Map(), new Map([[ROOT, 3]]))).toEqual({
      refused: [null, null, 'trigger_chain_runs', null],
      chainRuns: { [ROOT]: 2 },
    });
  });

  it('a start refused for its chain takes no room of its user', () => {
    const sut = new RunStartLimits(1, 1);
    const starts = [{ userId: ALICE, chainRootId: ROOT }, { userId: ALICE, chainRootId: ROOT }, { userId: ALICE }];
    expect(reasons(sut, starts).refused).toEqual([null, 'trigger_chain_runs', 'waiting_runs_per_user']);
  });

  it('0 turns each limit off', () => {
    const sut = new RunStartLimits(0, 0);
    const starts = Array.from({ length: 50 }, () => ({ userId: ALICE, chainRootId: ROOT }));
    expect(reasons(sut, starts, new Map([[ALICE, 10_000]]), new Map([[ROOT, 10_000]])).refused.every((r) => r === null)).toBe(true);
  });
});
