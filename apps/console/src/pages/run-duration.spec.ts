import { durationText } from './run-duration';

describe(durationText.name, () => {
  it('writes the two largest units of a finished run', () => {
    expect(durationText('2026-01-01T00:00:00Z', '2026-01-01T01:02:03Z', 0)).toBe('1 hour 2 minutes');
  });

  it('counts a run that goes on up to now, and under a second in milliseconds', () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    expect(durationText(start, null, start + 65_000)).toBe('1 minute 5 seconds');
    expect(durationText(start, start + 250, 0)).toBe('250 ms');
  });

  it('never goes negative, and says nothing of a time it cannot read', () => {
    expect(durationText('2026-01-01T00:00:10Z', '2026-01-01T00:00:00Z', 0)).toBe('0 ms');
    expect(durationText('not a time', null, 0)).toBe('—');
  });
});
