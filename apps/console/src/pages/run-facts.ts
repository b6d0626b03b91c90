import type { RunEvent } from '@aas/sdk';

/** What a run's events say it did so far: its title, steps, tools, and how it ended. */
export interface RunFacts {
  title: string | null;
  steps: number;
  tools: string[];
  outcome: string | null;
  summary: string | null;
  /** The sums of the usage lines so far (the run's usage, before the next fetch of the run says so). */
  usage: { input_tokens: number; output_tokens: number; model_calls: number };
}

/** Read from the events as they arrive, so the facts move with the run rather than with the last fetch of it. */
export function runFacts(events: RunEvent[]): RunFacts {
  const facts: RunFacts = { title: null, steps: 0, tools: [], outcome: null, summary: null, usage: { input_tokens: 0, output_tokens: 0, model_calls: 0 } };
  for (const { event } of events) {
    const [type, body] = Object.entries(event as Record<string, Record<string, unknown>>)[0] ?? [];
    if (type === 'step') facts.steps += 1;
    if (type === 'title' && typeof body?.title === 'string') facts.title = body.title;
    if (type === 'tool_call' && typeof body?.tool === 'string' && !facts.tools.includes(body.tool)) facts.tools.push(body.tool);
    if (type === 'usage') {
      facts.usage.input_tokens += typeof body?.input_tokens === 'number' ? body.input_tokens : 0;
      facts.usage.output_tokens += typeof body?.output_tokens === 'number' ? body.output_tokens : 0;
      facts.usage.model_calls += 1;
    }
    if (type === 'completed') {
      facts.outcome = typeof body?.outcome === 'string' ? body.outcome : null;
      facts.summary = typeof body?.summary === 'string' ? body.summary : null;
    }
  }
  return facts;
}
