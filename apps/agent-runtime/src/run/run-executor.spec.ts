import { timeBeforeDeadline } from './run-executor';

describe('timeBeforeDeadline', () => {
  const now = Date.parse('2026-11-27T12:00:00.000Z');
  const at = (ms: number) => new Date(now + ms).toISOString();

  it('stops a run a tenth of the time left before its deadline, at most a second', () => {
    expect(timeBeforeDeadline(at(5000), now)).toBe(4500);
    expect(timeBeforeDeadline(at(3_600_000), now)).toBe(3_599_000);
    expect(timeBeforeDeadline(at(1000), now)).toBe(900);
  });

  it('a deadline already passed stops the run at once', () => {
    expect(timeBeforeDeadline(at(-5000), now)).toBe(0);
  });
});
