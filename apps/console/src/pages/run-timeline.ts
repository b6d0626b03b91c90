import type { RunEvent } from '@aas/sdk';

/** A tool call with its result once the result line arrived (matched by call_id). */
export interface ToolCallEntry {
  kind: 'tool';
  callId: string;
  tool: string;
  input: unknown;
  output: string | null;
  truncated: boolean;
  isError: boolean;
  eventIndex: number;
}

/** What happens inside a step: tool calls, the model's messages, and the other lines, as they are. */
export type TimelineEntry =
  | ToolCallEntry
  | { kind: 'message'; text: string; eventIndex: number }
  | { kind: 'usage'; model: string; inputTokens: number; outputTokens: number; eventIndex: number }
  | { kind: 'other'; type: string; body: Record<string, unknown>; eventIndex: number };

/** The status of a step, in the run statuses' names (so it takes the same badge). */
export type StepStatus = 'in_progress' | 'completed' | 'error' | 'stopped' | 'paused';

export interface TimelineStep {
  /** null for what the run recorded before its first step. */
  number: number | null;
  title: string;
  startedAt: string;
  /** When the next step started or the run ended; null while it goes on. */
  endedAt: string | null;
  status: StepStatus;
  entries: TimelineEntry[];
}

/** What the run page knows of the run beyond its events. */
export interface RunEnd {
  status: string | null | undefined;
  isFinished: boolean;
  finishedAt: string | null | undefined;
}

const text = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
const count = (value: unknown): number => (typeof value === 'number' ? value : 0);

function entryOf(type: string, body: Record<string, unknown>, eventIndex: number): TimelineEntry {
  if (type === 'message' && typeof body.text === 'string') return { kind: 'message', text: body.text, eventIndex };
  if (type === 'usage') return { kind: 'usage', model: text(body.model), inputTokens: count(body.input_tokens), outputTokens: count(body.output_tokens), eventIndex };
  if (type === 'tool_call') return { kind: 'tool', callId: text(body.call_id), tool: text(body.tool, 'tool'), input: body.input, output: null, truncated: false, isError: false, eventIndex };
  return { kind: 'other', type, body, eventIndex };
}

/** The last step's status: the run's own once it ended, else in progress (or paused). */
function lastStepStatus(end: RunEnd): StepStatus {
  if (!end.isFinished) return end.status === 'paused' ? 'paused' : 'in_progress';
  return end.status === 'error' || end.status === 'stopped' ? end.status : 'completed';
}

/**
 * The run's events as a timeline: each `step` line opens a step that lasts until the next one (or the
 * run's end), holding the lines recorded during it; a `tool_result` joins its `tool_call`.
 */
export function runTimeline(events: RunEvent[], end: RunEnd): TimelineStep[] {
  const steps: TimelineStep[] = [];
  const calls = new Map<string, ToolCallEntry>();
  let endedAt: string | null = end.finishedAt ?? null;
  for (const { event, event_index, recorded_at } of events) {
    const [type = 'event', raw] = Object.entries(event as Record<string, unknown>)[0] ?? [];
    const body = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    if (type === 'completed' || type === 'failed') endedAt ??= recorded_at;
    if (type === 'step') {
      const previous = steps.at(-1);
      if (previous) previous.endedAt = recorded_at;
      const number = steps.filter((s) => s.number !== null).length + 1;
      steps.push({ number, title: text(body.title, `Step ${number}`), startedAt: recorded_at, endedAt: null, status: 'completed', entries: [] });
      continue;
    }
    const call = type === 'tool_result' ? calls.get(text(body.call_id)) : undefined;
    if (call) {
      Object.assign(call, { output: text(body.output, JSON.stringify(body.output ?? null)), truncated: body.truncated === true, isError: body.is_error === true });
      continue;
    }
    if (steps.length === 0) steps.push({ number: null, title: 'Before the first step', startedAt: recorded_at, endedAt: null, status: 'completed', entries: [] });
    const entry = entryOf(type, body, event_index);
    if (entry.kind === 'tool') calls.set(entry.callId, entry);
    steps.at(-1)!.entries.push(entry);
  }
  const last = steps.at(-1);
  if (last) {
    last.status = lastStepStatus(end);
    last.endedAt = end.isFinished ? (endedAt ?? last.startedAt) : null;
  }
  return steps;
}
