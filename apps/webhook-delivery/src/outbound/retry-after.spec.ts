import { parseRetryAfter } from './retry-after';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe(parseRetryAfter.name, () => {
  const now = new Date('2025-03-01T12:00:00.000Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120 * SECOND);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an IMF-fixdate as the time until then', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 12:05:30 GMT', now)).toBe(5 * MINUTE + 30 * SECOND);
  });

  it('reads the obsolete RFC 850 and asctime forms as GMT', () => {
    expect(parseRetryAfter('Saturday, 01-Mar-25 13:00:00 GMT', now)).toBe(HOUR);
    expect(parseRetryAfter('Sat Mar  1 12:00:10 2025', now)).toBe(10 * SECOND);
  });

  it('gives undefined for a date in the past', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 11:59:59 GMT', now)).toBeUndefined();
  });

  it.each([undefined, '', '-5', '1.5', 'soon', 'abc 5', 'Sat, 01 Mar 2025 12:05:30', '2025-03-01T12:05:30Z', 'Sat, 99 Mar 2025 12:05:30 GMT'])(
    'gives undefined for %j',
    (header) => {
      expect(parseRetryAfter(header, now)).toBeUndefined();
    },
  );
});
