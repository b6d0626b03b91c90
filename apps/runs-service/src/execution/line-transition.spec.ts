import { EventNames } from '@aas/contracts';
import { RunState, fail, start, stop } from '../lifecycle/run-transition';
import { LineContext, transitionFor } from './line-transition';

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
    const t = transitionFor(running, { type: 'thinking', name: 'search' });
    expect(t.event).toEqual({ thinking: { name: 'search' } });
    expect(t.next).toEqual(running);
  });
});

describe('version 2 lines', () => {
  const context: LineContext = {
    prices: [
      { model: 'big-*', input_per_million: 10, output_per_million: 30 },
      { model: '*', input_per_million: 1, output_per_million: 2 },
    ],
    iconOf: (tool) => (tool === 'files.read' ? 'file' : null),
  };

  it('prices a usage line by the first row whose pattern matches its model', () => {
    const t = transitionFor(running, { type: 'usage', model: 'big-7', input_tokens: 1000, output_tokens: 10 }, context);
    expect(t.usage).toEqual({ model: 'big-7', inputTokens: 1000, outputTokens: 10, costMillionths: 10_300n });
    expect(t.event).toEqual({ usage: { model: 'big-7', input_tokens: 1000, output_tokens: 10 } });
    expect(transitionFor(running, { type: 'usage', model: 'small', input_tokens: 1000, output_tokens: 10 }, context).usage?.costMillionths).toBe(1020n);
  });

  it('turns a tool call into its tool_icons entry, with the icon the catalogue gives it', () => {
    expect(transitionFor(running, { type: 'tool_call', call_id: 'c', tool: 'files.read', input: {} }, context).toolCall).toEqual({
      action_type: 'files.read',
      favicon_url: null,
      icon: 'file',
    });
    expect(transitionFor(running, { type: 'tool_call', call_id: 'c', tool: 'http_request', input: { url: 'ftp://x.test/' } }, context).toolCall).toEqual({
      action_type: 'http_request',
      favicon_url: null,
      icon: null,
    });
  });

  it('carries a title and an agent name, and records a tool result as an event only', () => {
    expect(transitionFor(running, { type: 'title', title: 'Digest' }).title).toBe('Digest');
    expect(transitionFor(running, { type: 'agent_name', name: 'N' }).agentName).toEqual({ name: 'N', explanation: null });
    const result = transitionFor(running, { type: 'tool_result', call_id: 'c', tool: 't', output: 'o', truncated: false, is_error: false });
    expect([result.next, result.stepDelta, result.toolCall, result.event]).toEqual([
      running,
      0,
      undefined,
      { tool_result: { call_id: 'c', tool: 't', output: 'o', truncated: false, is_error: false } },
    ]);
  });

  it.each([
    ['usage with tokens that are not integers', { type: 'usage', model: 'm', input_tokens: 1.5, output_tokens: 0 }, /input_tokens/],
    ['usage with negative tokens', { type: 'usage', model: 'm', input_tokens: 0, output_tokens: -1 }, /output_tokens/],
    ['usage without a model', { type: 'usage', input_tokens: 1, output_tokens: 1 }, /model/],
    ['a tool call without a tool', { type: 'tool_call', call_id: 'c', input: {} }, /tool must/],
    ['a title past 500 characters', { type: 'title', title: 'x'.repeat(501) }, /title/],
    ['an empty title', { type: 'title', title: '' }, /title/],
    ['a title with NUL', { type: 'title', title: 'a\u0000b' }, /title/],
    ['an agent name past 200 characters', { type: 'agent_name', name: 'x'.repeat(201), explanation: null }, /name/],
    ['an explanation past 2000 characters', { type: 'agent_name', name: 'n', explanation: 'x'.repeat(2001) }, /explanation/],
  ])('ends the run in error on a line whose form breaks the protocol: %s', (_, line, reason) => {
    const t = transitionFor(running, line, context);
    expect([t.next.status, t.lifecycle, t.usage, t.title, t.toolCall, t.agentName]).toEqual(['error', EventNames.RunFailed, undefined, undefined, undefined, undefined]);
    expect(t.event).toEqual({ failed: { error: expect.stringMatching(new RegExp(`breaks the protocol: .*${reason.source}`)) } });
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
