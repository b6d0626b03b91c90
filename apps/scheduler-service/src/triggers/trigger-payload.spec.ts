import { PayloadTooLargeError } from '@aas/problem-details';
import { SourceRun, boundedSourceRun, checkInboundPayload } from './trigger-payload';

const RUN: SourceRun = {
  run_id: '6c0b1f0e-8a4e-4c4e-9b7e-0d4c8f1e2a3b',
  agent_id: '7d1c2f0e-8a4e-4c4e-9b7e-0d4c8f1e2a3b',
  event: 'run.completed',
  status: 'completed',
  outcome: 'success',
  summary: 'short',
  finished_at: '2026-03-01T12:00:00.000Z',
};
const bytesOf = (run: SourceRun) => Buffer.byteLength(JSON.stringify({ source_run: run }));

describe(boundedSourceRun.name, () => {
  it('keeps a source run that fits as it is', () => {
    expect(boundedSourceRun(RUN, 1024)).toBe(RUN);
  });

  it.each([
    ['ASCII', 'a'.repeat(50_000)],
    ['characters JSON escapes', '"\\\n'.repeat(20_000)],
    ['characters of 3 and 4 bytes', '€😀'.repeat(20_000)],
  ])('cuts a summary of %s to fit, and says so', (_, summary) => {
    const cut = boundedSourceRun({ ...RUN, summary }, 4096);
    expect(bytesOf(cut)).toBeLessThanOrEqual(4096);
    expect(bytesOf(cut)).toBeGreaterThan(4096 - 64);
    expect(summary.startsWith(cut.summary!)).toBe(true);
    expect(cut.summary_truncated).toBe(true);
    expect(cut.summary).not.toMatch(/[\uD800-\uDBFF]$/);
  });
});

describe(checkInboundPayload.name, () => {
  it('takes a body up to the limit in UTF-8 bytes, and refuses a larger one with a 413', () => {
    expect(() => checkInboundPayload('é'.repeat(512), 1024)).not.toThrow();
    expect(() => checkInboundPayload('é'.repeat(513), 1024)).toThrow(PayloadTooLargeError);
  });
});
