import { DEFAULT_RETRY_DELAYS_MS, nextRetryDelay, parseRetryDelays } from './retry-schedule';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('DEFAULT_RETRY_DELAYS_MS', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(DEFAULT_RETRY_DELAYS_MS).toEqual([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
  });
});

describe(parseRetryDelays.name, () => {
  it('reads the default schedule from its config form', () => {
    expect(parseRetryDelays('5s,5m,30m,2h,5h,10h,10h')).toEqual(DEFAULT_RETRY_DELAYS_MS);
  });

  it('reads every unit and tolerates spaces around items', () => {
    expect(parseRetryDelays(' 250ms , 1s,2m ,3h ')).toEqual([250, SECOND, 2 * MINUTE, 3 * HOUR]);
  });

  it('reads a blank value as no retries', () => {
    expect(parseRetryDelays('')).toEqual([]);
    expect(parseRetryDelays('  ')).toEqual([]);
  });

  it.each([
    ['5s,5x,30m', /retry delay 2 \("5x"\)/],
    ['5s,,30m', /retry delay 2 \(""\)/],
    ['5', /retry delay 1 \("5"\)/],
    ['-5s', /retry delay 1 \("-5s"\)/],
    ['1.5h', /retry delay 1 \("1.5h"\)/],
    ['5 s', /retry delay 1 \("5 s"\)/],
    ['5s,10d', /retry delay 2 \("10d"\)/],
  ])('rejects %j, naming the bad item', (text, message) => {
    expect(() => parseRetryDelays(text)).toThrow(message);
  });
});

describe(nextRetryDelay.name, () => {
  const delays = [10 * SECOND, 5 * MINUTE, HOUR];

  it('gives each listed delay unchanged at the middle of the jitter range', () => {
    expect([1, 2, 3].map((attempt) => nextRetryDelay(attempt, delays, () => 0.5))).toEqual(delays);
  });

  it('jitters by up to 20 % either way, uniformly', () => {
    expect(nextRetryDelay(2, delays, () => 0)).toBe(5 * MINUTE * 0.8);
    expect(nextRetryDelay(2, delays, () => 0.25)).toBe(5 * MINUTE * 0.9);
    expect(nextRetryDelay(2, delays, () => 0.75)).toBe(5 * MINUTE * 1.1);
    expect(nextRetryDelay(2, delays, () => 0.999999)).toBe(5 * MINUTE * 1.2);
  });

  it('stays within ±20 % with the real random source', () => {
    for (let i = 0; i < 200; i += 1) {
      const delay = nextRetryDelay(1, delays)!;
      expect(delay).toBeGreaterThanOrEqual(8 * SECOND);
      expect(delay).toBeLessThanOrEqual(12 * SECOND);
    }
  });

  it('returns null once the attempts are used up', () => {
    expect(nextRetryDelay(3, delays, () => 0.5)).not.toBeNull();
    expect(nextRetryDelay(4, delays, () => 0.5)).toBeNull();
    expect(nextRetryDelay(8, DEFAULT_RETRY_DELAYS_MS, () => 0.5)).toBeNull();
    expect(nextRetryDelay(1, [], () => 0.5)).toBeNull();
  });

  it('waits at least as long as Retry-After asks', () => {
    expect(nextRetryDelay(1, delays, () => 0.5, 2 * MINUTE)).toBe(2 * MINUTE);
  });

  it('keeps the scheduled delay when Retry-After is shorter', () => {
    expect(nextRetryDelay(3, delays, () => 0, 30 * SECOND)).toBe(HOUR * 0.8);
  });

  it('caps Retry-After at 24 hours', () => {
    expect(nextRetryDelay(1, delays, () => 0.5, 72 * HOUR)).toBe(24 * HOUR);
  });

  it('does not let Retry-After revive an exhausted schedule', () => {
    expect(nextRetryDelay(4, delays, () => 0.5, MINUTE)).toBeNull();
  });

  it.each([0, -1, 1.5])('rejects attempt %p', (attempt) => {
    expect(() => nextRetryDelay(attempt, delays)).toThrow(RangeError);
  });
});
