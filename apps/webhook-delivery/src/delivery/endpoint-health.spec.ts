import { attemptError, healthChanges, healthError } from './endpoint-health';
import { AttemptRecord, Outcome } from './delivery.store';

const at = (second: number) => new Date(Date.UTC(2026, 2, 1, 12, 0, second));

function record(webhookId: string, second: number, statusCode: number | null, outcome: Outcome, error: string | null = null): AttemptRecord {
  return {
    deliveryId: `d-${second}`,
    webhookId,
    attempt: 1,
    startedAt: at(second),
    result: { statusCode, error, responseBody: null, durationMs: 1, requestHeaders: {}, responseHeaders: null },
    outcome,
  };
}
const retry: Outcome = { status: 'pending', nextAttemptAt: at(59) };

describe(attemptError.name, () => {
  it("is the attempt's error, with why it is not retried when it ends early", () => {
    expect(attemptError(record('w', 1, 503, retry))).toBeNull();
    expect(attemptError(record('w', 1, null, retry, 'no answer within 15000 ms'))).toBe('no answer within 15000 ms');
    expect(attemptError(record('w', 1, 410, { status: 'failed', notRetried: 'the receiver answered 410 Gone' }))).toBe('not retried: the receiver answered 410 Gone');
    expect(attemptError(record('w', 1, null, { status: 'failed', notRetried: 'not public' }, 'refused: x'))).toBe('refused: x; not retried: not public');
  });
});

describe(healthError.name, () => {
  it('names the status with its reason phrase, and the error when there is one', () => {
    expect(healthError(record('w', 1, 503, retry))).toBe('HTTP 503 Service Unavailable');
    expect(healthError(record('w', 1, 599, retry))).toBe('HTTP 599');
    expect(healthError(record('w', 1, null, retry, 'ECONNREFUSED: connect'))).toBe('ECONNREFUSED: connect');
    expect(healthError(record('w', 1, 410, { status: 'failed', notRetried: 'gone' }))).toBe('HTTP 410 Gone: not retried: gone');
  });
});

describe(healthChanges.name, () => {
  it('one change per webhook, sorted by id: failures after the last success, the latest error and success', () => {
    const changes = healthChanges([
      record('b', 1, 500, retry),
      record('a', 2, 404, retry),
      record('b', 3, 200, { status: 'succeeded' }),
      record('b', 4, null, retry, 'ECONNRESET: socket hang up'),
      record('b', 5, 502, retry),
    ]);
    expect(changes).toEqual([
      { webhookId: 'a', succeeded: false, failures: 1, lastSuccessAt: null, lastError: 'HTTP 404 Not Found', lastErrorAt: at(2) },
      { webhookId: 'b', succeeded: true, failures: 2, lastSuccessAt: at(3), lastError: 'HTTP 502 Bad Gateway', lastErrorAt: at(5) },
    ]);
  });

  it('a success last resets the count to 0', () => {
    expect(healthChanges([record('a', 1, 500, retry), record('a', 2, 204, { status: 'succeeded' })])[0]).toMatchObject({ succeeded: true, failures: 0 });
  });
});
