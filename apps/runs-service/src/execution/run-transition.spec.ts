import { EventNames } from '@aas/contracts';
import { RunState, fail, start, stop, transitionFor } from './run-transition';

const running: RunState = { status: 'in_progress', isFinished: false, isPaused: false, hasPendingInput: false };

describe(transitionFor.name, () => {
  it('records a step under its type and counts it', () => {
    const t = transitionFor({ ...running, hasPendingInput: true }, { type: 'step', title: 'x' });
    expect(t.event).toEqual({ step: { title: 'x' } });
    expect(t.stepDelta).toBe(1);
    expect(t.next.hasPendingInput).toBe(false);
    expect(t.lifecycle).toBeUndefined();
  });

  it('keeps a message as the chat message', () => {
    expect(transitionFor(running, { type: 'message', text: 'hi' }).chatMessage).toBe('hi');
  });

  it('marks pending input on waiting_for_input', () => {
    expect(transitionFor(running, { type: 'waiting_for_input' }).next.hasPendingInput).toBe(true);
  });

  it('pauses once and resumes a paused run', () => {
    const paused = transitionFor(running, { type: 'paused' });
    expect(paused.next).toMatchObject({ status: 'paused', isPaused: true });
    expect(paused.lifecycle).toBe(EventNames.RunPaused);
    expect(transitionFor(paused.next, { type: 'paused' }).lifecycle).toBeUndefined();
    expect(transitionFor(paused.next, { type: 'resumed' }).next).toMatchObject({ status: 'in_progress', isPaused: false });
  });

  it.each(['success', 'partial', 'fail'])('completes with outcome %s', (outcome) => {
    const t = transitionFor(running, { type: 'completed', outcome, summary: 'done' });
    expect(t.next).toMatchObject({ status: 'completed', isFinished: true });
    expect(t.outcome).toBe(outcome);
    expect(t.summary).toBe('done');
    expect(t.lifecycle).toBe(EventNames.RunCompleted);
  });

  it('turns a completed line with an unknown outcome into an error', () => {
    const t = transitionFor(running, { type: 'completed', outcome: 'great' });
    expect(t.next.status).toBe('error');
    expect(t.lifecycle).toBe(EventNames.RunFailed);
  });

  it('ends in error on a failed line', () => {
    const t = transitionFor(running, { type: 'failed', error: 'boom' });
    expect(t.next).toMatchObject({ status: 'error', isFinished: true });
    expect(t.lifecycle).toBe(EventNames.RunFailed);
  });

  it('carries instructions to write', () => {
    const plan_steps = [{ title: 't', description: 'd', tools: ['search'], order: 0 }];
    const t = transitionFor(running, { type: 'instructions', content: 'c', plan_steps });
    expect([t.instructions, t.next]).toEqual([{ content: 'c', plan_steps }, running]);
  });

  it.each([
    ['a plan step that is not one', { content: 'c', plan_steps: [{ title: 't' }] }, /plan_steps\.0\.description/],
    ['a plan step that is an array', { content: 'c', plan_steps: [[]] }, /plan_steps/],
    ['content past its largest size', { content: 'x'.repeat(262_145) }, /content/],
  ])('ends the run in error on instructions agents-service would refuse: %s', (_, fields, reason) => {
    const t = transitionFor(running, { type: 'instructions', ...fields });
    expect([t.instructions, t.next.status, t.lifecycle]).toEqual([undefined, 'error', EventNames.RunFailed]);
    expect(t.event).toEqual({ failed: { error: expect.stringMatching(reason) } });
  });

  it('records any other type as it is', () => {
    const t = transitionFor(running, { type: 'tool_call', name: 'search' });
    expect(t.event).toEqual({ tool_call: { name: 'search' } });
    expect(t.next).toEqual(running);
  });
});

describe('stop and fail', () => {
  it('stop finishes the run as stopped with the reason recorded', () => {
    const t = stop(running, 'user asked');
    expect(t.next).toMatchObject({ status: 'stopped', isFinished: true });
    expect(t.event).toEqual({ stopped: { reason: 'user asked' } });
    expect(t.lifecycle).toBe(EventNames.RunStopped);
  });

  it('fail records the reason', () => {
    expect(fail(running, 'unreachable').event).toEqual({ failed: { error: 'unreachable' } });
  });
});

describe('start', () => {
  it('records event 0 as {"started":{}} and fires run.started', () => {
    const t = start({ status: 'in_progress', isFinished: false, isPaused: false, hasPendingInput: false });
    expect(t.event).toEqual({ started: {} });
    expect(t.lifecycle).toBe(EventNames.RunStarted);
    expect(t.next.isFinished).toBe(false);
  });
});
