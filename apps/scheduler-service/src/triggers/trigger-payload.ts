import { PayloadTooLargeError } from '@aas/problem-details';

/** An event trigger's source run, as its run's template and dispatch see it. */
export interface SourceRun {
  run_id: string;
  agent_id: string;
  event: string;
  status: string;
  outcome: string | null;
  summary: string | null;
  finished_at: string | null;
  /** Present (true) when the summary was cut to fit TRIGGER_PAYLOAD_MAX_BYTES. */
  summary_truncated?: true;
}

/** An inbound body larger than the payload a run keeps is refused (413): it is kept whole or not at all. */
export function checkInboundPayload(body: string, maxBytes: number): void {
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > maxBytes) {
    throw new PayloadTooLargeError(`The payload is ${bytes} bytes, more than the ${maxBytes} a run keeps (TRIGGER_PAYLOAD_MAX_BYTES)`);
  }
}

/**
 * The source run as an event trigger's run keeps it (`{source_run}`) within `maxBytes` of JSON: its summary,
 * the only field of unbounded length, is cut to fit and `summary_truncated` set. A cut never leaves half of
 * a surrogate pair, which PostgreSQL's jsonb refuses.
 */
export function boundedSourceRun(run: SourceRun, maxBytes: number): SourceRun {
  if (keptBytes(run) <= maxBytes || !run.summary) return run;
  const budget = maxBytes - keptBytes({ ...run, summary: '', summary_truncated: true }) + 2;
  const fits = (length: number) => Buffer.byteLength(JSON.stringify(prefix(run.summary!, length)), 'utf8') <= budget;
  // Every character is at least one byte of JSON, so the longest prefix that fits is at most `budget` long.
  let [low, high] = [0, Math.max(0, Math.min(run.summary.length, budget))];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return { ...run, summary: prefix(run.summary, low), summary_truncated: true };
}

/** The first `length` characters, without half of a surrogate pair at the end. */
function prefix(text: string, length: number): string {
  const cut = text.slice(0, length);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

function keptBytes(run: SourceRun): number {
  return Buffer.byteLength(JSON.stringify({ source_run: run }), 'utf8');
}
