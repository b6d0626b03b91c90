import { ConflictError } from '@aas/problem-details';
import { runRow } from '../database/run-row.fake';
import { replayVersion, versionPrunedError } from './replay-run-start';

describe(replayVersion.name, () => {
  it('pins the version the origin ran when asked for the original, and none for the current instructions', () => {
    const origin = runRow({ instructionsVersionId: '42' });
    expect(replayVersion(origin, 'original')).toEqual({ pinned: 42 });
    expect(replayVersion(origin, 'current')).toEqual({ pinned: null });
  });

  it('refuses the original of a run that recorded no version (409), while the current instructions still replay it', () => {
    const origin = runRow({ instructionsVersionId: null });
    const outcome = replayVersion(origin, 'original');
    expect('refusal' in outcome && outcome.refusal).toBeInstanceOf(ConflictError);
    expect('refusal' in outcome && outcome.refusal.message).toContain('recorded no instructions version');
    expect(replayVersion(origin, 'current')).toEqual({ pinned: null });
  });

  it("refuses a triggered run whose trigger data is gone, whichever instructions; a run started by the API needs none", () => {
    const gone = runRow({ triggerId: '33333333-3333-4333-8333-333333333333', triggerData: null, instructionsVersionId: '1' });
    for (const instructions of ['original', 'current'] as const) {
      const outcome = replayVersion(gone, instructions);
      expect('refusal' in outcome && outcome.refusal.message).toBe(`The input of run ${gone.id} is gone (its trigger data is no longer kept): it cannot be replayed`);
    }
    expect(replayVersion(runRow({ triggerData: null, instructionsVersionId: '1' }), 'original')).toEqual({ pinned: 1 });
  });

  it('names the pruned version and its agent', () => {
    expect(versionPrunedError('a1', 7).message).toMatch(/^Instructions version 7 of agent a1 was pruned/);
  });
});
