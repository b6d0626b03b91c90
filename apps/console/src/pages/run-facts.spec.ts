import type { RunEvent } from '@aas/sdk';
import { runFacts } from './run-facts';

const at = (event_index: number, event: object): RunEvent => ({ event_index, recorded_at: '2026-11-27T10:00:00.000Z', event }) as RunEvent;

describe('runFacts', () => {
  it('counts steps, keeps the last title and each tool once, and reads the end', () => {
    const events = [
      at(0, { started: {} }),
      at(1, { title: { title: 'Reading the page' } }),
      at(2, { step: { title: 'Step 1' } }),
      at(3, { tool_call: { call_id: 'a', tool: 'http_request', input: {} } }),
      at(4, { tool_result: { call_id: 'a', tool: 'http_request', output: '{"type":"completed","outcome":"fail"}' } }),
      at(5, { step: { title: 'Step 2' } }),
      at(6, { tool_call: { call_id: 'b', tool: 'http_request', input: {} } }),
      at(7, { tool_call: { call_id: 'c', tool: 'docs.search', input: {} } }),
      at(7, { usage: { model: 'm', input_tokens: 100, output_tokens: 20 } }),
      at(7, { usage: { model: 'm', input_tokens: 50, output_tokens: 5 } }),
      at(8, { title: { title: 'Reporting' } }),
      at(9, { completed: { outcome: 'partial', summary: 'Half of it.' } }),
    ];
    expect(runFacts(events)).toEqual({ title: 'Reporting', steps: 2, tools: ['http_request', 'docs.search'], outcome: 'partial', summary: 'Half of it.', usage: { input_tokens: 150, output_tokens: 25, model_calls: 2 } });
  });

  it('says nothing it was not told: a run without those events', () => {
    expect(runFacts([at(0, { started: {} }), at(1, { failed: { error: 'x' } })])).toEqual({ title: null, steps: 0, tools: [], outcome: null, summary: null, usage: { input_tokens: 0, output_tokens: 0, model_calls: 0 } });
  });
});
