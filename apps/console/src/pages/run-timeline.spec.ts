import type { RunEvent } from '@aas/sdk';
import { runTimeline } from './run-timeline';

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const events = (...lines: Array<[number, Record<string, unknown>]>): RunEvent[] =>
  lines.map(([second, event], i) => ({ event_index: i, recorded_at: at(second), event }) as unknown as RunEvent);
const going = { status: 'in_progress', isFinished: false, finishedAt: null };

describe(runTimeline.name, () => {
  it('makes a step of each step line, lasting until the next one, the last one going on', () => {
    const steps = runTimeline(events([0, { step: { title: 'Look' } }], [3, { step: {} }]), going);
    expect(steps.map((s) => [s.number, s.title, s.startedAt, s.endedAt, s.status])).toEqual([
      [1, 'Look', at(0), at(3), 'completed'],
      [2, 'Step 2', at(3), null, 'in_progress'],
    ]);
  });

  it('joins a tool result to its call, and keeps messages and usage inside their step', () => {
    const [step] = runTimeline(
      events(
        [0, { step: { title: 'Fetch' } }],
        [1, { tool_call: { call_id: 'c1', tool: 'http_request', input: { url: 'https://x.test' } } }],
        [2, { tool_result: { call_id: 'c1', tool: 'http_request', output: '{"ok":true}', truncated: true, is_error: false } }],
        [2, { message: { text: 'Fetched it.' } }],
        [2, { usage: { model: 'm', input_tokens: 10, output_tokens: 5 } }],
      ),
      going,
    );
    expect(step!.entries).toEqual([
      { kind: 'tool', callId: 'c1', tool: 'http_request', input: { url: 'https://x.test' }, output: '{"ok":true}', truncated: true, isError: false, eventIndex: 1 },
      { kind: 'message', text: 'Fetched it.', eventIndex: 3 },
      { kind: 'usage', model: 'm', inputTokens: 10, outputTokens: 5, eventIndex: 4 },
    ]);
  });

  it("ends the last step with the run, in the run's status", () => {
    const steps = runTimeline(events([0, { step: {} }], [4, { failed: { error: 'step limit' } }]), { status: 'error', isFinished: true, finishedAt: null });
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ status: 'error', endedAt: at(4) });
    expect(steps[0]!.entries[0]).toMatchObject({ kind: 'other', type: 'failed', body: { error: 'step limit' } });
  });

  it('groups what came before the first step, without a step number', () => {
    const steps = runTimeline(events([0, { agent_name: { name: 'Reporter' } }], [1, { step: {} }]), going);
    expect(steps.map((s) => s.number)).toEqual([null, 1]);
    expect(steps[0]!.endedAt).toBe(at(1));
  });

  it('keeps a result whose call it never saw as a line of its own', () => {
    const [step] = runTimeline(events([0, { step: {} }], [1, { tool_result: { call_id: 'zz', output: 'x' } }]), going);
    expect(step!.entries[0]).toMatchObject({ kind: 'other', type: 'tool_result' });
  });
});
