import { EventNames } from '@aas/contracts';
import { runRow } from '../database/run-row.fake';
import { FakeRunRecordStore } from './run-record.store.fake';
import { recorderOnFakes } from './run-recorder.fake';
import { transitionFor } from '../execution/line-transition';
import { start, stop } from './run-transition';

describe('a run end, visible only once its effects are applied (RunEnds)', () => {
  function setup(settings = {}) {
    const run = runRow({ runMode: 'build' });
    const store = new FakeRunRecordStore([run]);
    const fakes = recorderOnFakes(store, settings);
    const line = (l: Record<string, unknown>) => fakes.recorder.apply(run.id, (state) => transitionFor(state, { type: '', ...l } as never));
    return { run, store, line, ...fakes };
  }

  it('applies the effects first (lifecycle, final progress, the last instructions written), then publishes the end flagged as applied', async () => {
    const { run, store, line, recorder, effects, pushed, admissionKicks } = setup();
    await recorder.apply(run.id, start);
    await line({ type: 'instructions', content: 'first', plan_steps: [] });
    await line({ type: 'instructions', content: 'second' });
    expect(await line({ type: 'completed', outcome: 'success', summary: 'ok' })).toBe('finished');

    expect(effects.applied).toHaveLength(1);
    const [end] = effects.applied;
    expect(end.lifecycle).toMatchObject({ event: EventNames.RunCompleted, run_id: run.id, status: 'completed', outcome: 'success' });
    expect(end.progress).toMatchObject({ run_id: run.id, is_finished: true, status: 'completed', wrote_instructions: true, deployed_at: expect.any(String) });
    expect(end.instructions).toMatchObject({ run_id: run.id, content: 'second', seq: 2 });
    expect(end.instructions).not.toHaveProperty('plan_steps');
    expect((await store.find(run.id))!.status).toBe('completed');
    expect(store.outboxOf(EventNames.RunCompleted)).toEqual([expect.objectContaining({ effects_applied: true })]);
    expect(pushed.at(-1)).toEqual({ runId: run.id, index: 3, finished: true });
    expect(admissionKicks).toEqual([run.userId]);
  });

  it("carries a build run's last agent name with its end, and none for a run that named nothing", async () => {
    const { run, line, recorder, effects } = setup();
    await recorder.apply(run.id, start);
    await line({ type: 'agent_name', name: 'First name', explanation: null });
    await line({ type: 'agent_name', name: 'Weather reporter', explanation: 'Reports the weather.' });
    await line({ type: 'completed', outcome: 'success' });
    expect(effects.applied[0].agent_name).toMatchObject({ run_id: run.id, name: 'Weather reporter', explanation: 'Reports the weather.', seq: 2 });

    const other = setup();
    await other.recorder.apply(other.run.id, start);
    await other.line({ type: 'completed', outcome: 'success' });
    expect(other.effects.applied[0]).not.toHaveProperty('agent_name');
  });

  it('keeps the run unfinished while its effects fail, records nothing more meanwhile, and publishes once they apply', async () => {
    const { run, store, recorder, ends, effects, pushed } = setup();
    await recorder.apply(run.id, start);
    effects.failing = new Error('agents-service did not answer');
    expect(await recorder.apply(run.id, (state) => stop(state, 'enough'))).toBe('finished');
    expect((await store.find(run.id))!).toMatchObject({ status: 'in_progress', isFinished: false });
    expect(store.outboxOf(EventNames.RunStopped)).toEqual([]);
    expect(pushed.filter((p) => p.finished)).toEqual([]);
    expect(store.ends.get(run.id)!.retryAt.getTime()).toBeGreaterThan(Date.now()); // left to the sweep, a little later

    // A line arriving meanwhile is not recorded, and a second end waits for the first.
    expect(await recorder.apply(run.id, (state) => transitionFor(state, { type: 'step' }))).toBe('ignored');
    effects.failing = undefined;
    expect(await recorder.apply(run.id, (state) => stop(state, 'again'))).toBe('ignored');
    expect((await store.find(run.id))!).toMatchObject({ status: 'stopped', isFinished: true, eventCount: '2' });
    expect(store.events.at(-1)!.body).toEqual({ stopped: { reason: 'enough' } });
    expect(store.outboxOf(EventNames.RunStopped)).toEqual([expect.objectContaining({ effects_applied: true })]);
    expect(effects.applied.map((e) => e.lifecycle.event)).toEqual([EventNames.RunStopped]);
    await ends.finish(run.id); // nothing left aside: nothing happens
    expect(store.outboxOf(EventNames.RunStopped)).toHaveLength(1);
  });

  it('publishes an end without its effects once RUN_END_EFFECTS_TIMEOUT_MS has passed, for the consumers to apply them', async () => {
    const { run, store, recorder, effects } = setup({ RUN_END_EFFECTS_TIMEOUT_MS: 1000 });
    await recorder.apply(run.id, start);
    effects.failing = new Error('agents-service is down');
    await recorder.apply(run.id, (state) => stop(state, null));
    expect((await store.find(run.id))!.isFinished).toBe(false);
    store.ends.get(run.id)!.since = new Date(Date.now() - 1001);
    store.ends.get(run.id)!.retryAt = new Date(0);
    expect(await store.claimDueEnds(10, new Date(Date.now() + 60_000))).toEqual([run.id]);
    expect(await recorder.apply(run.id, (state) => stop(state, null))).toBe('ignored');
    expect((await store.find(run.id))!.status).toBe('stopped');
    const [published] = store.outboxOf(EventNames.RunStopped) as Array<Record<string, unknown>>;
    expect(published.effects_applied).toBeUndefined();
  });

  it('past the drain deadline, waits for the effects a little only, then leaves the end for any replica at once', async () => {
    const { run, store, recorder, ends, effects } = setup();
    await recorder.apply(run.id, start);
    effects.apply = () => new Promise(() => undefined); // a service stopping too: no answer
    ends.hurry();
    const t0 = Date.now();
    expect(await recorder.apply(run.id, (state) => stop(state, null))).toBe('finished');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect((await store.find(run.id))!.isFinished).toBe(false);
    expect(store.ends.get(run.id)!.retryAt.getTime()).toBeLessThanOrEqual(Date.now());
  });
});
