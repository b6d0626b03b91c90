import { CronExpressionError, CronWorkMeter, parseCronSchedule, parseCronScheduleAt } from './cron-schedule';

const at = (iso: string) => new Date(iso);
const iso = (dates: Array<Date | null>) => dates.map((d) => d?.toISOString() ?? null);
const upcomingIso = (expression: string, after: string, count: number, timezone?: string) =>
  iso(parseCronSchedule(expression, timezone).upcoming(at(after), count));

describe(parseCronSchedule.name, () => {
  describe('fire times', () => {
    it('every 2 seconds', () => {
      expect(upcomingIso('*/2 * * * * ? *', '2026-01-01T00:00:00Z', 3)).toEqual([
        '2026-01-01T00:00:02.000Z',
        '2026-01-01T00:00:04.000Z',
        '2026-01-01T00:00:06.000Z',
      ]);
      expect(iso([parseCronSchedule('*/2 * * * * ? *').next(at('2026-01-01T00:00:01.500Z'))])).toEqual([
        '2026-01-01T00:00:02.000Z',
      ]);
    });

    it('is strictly after `after`', () => {
      expect(iso([parseCronSchedule('0 0 12 * * ? *').next(at('2026-01-01T12:00:00Z'))])).toEqual([
        '2026-01-02T12:00:00.000Z',
      ]);
    });

    it('honours the year field', () => {
      const schedule = parseCronSchedule('0 0 12 1 1 ? 2030');
      expect(iso([schedule.next(at('2026-06-01T00:00:00Z'))])).toEqual(['2030-01-01T12:00:00.000Z']);
      expect(schedule.next(at('2030-01-01T12:00:00Z'))).toBeNull();
      expect(iso(schedule.upcoming(at('2026-06-01T00:00:00Z'), 5))).toEqual(['2030-01-01T12:00:00.000Z']);
    });

    it('L: last day of the month', () => {
      expect(upcomingIso('0 0 12 L * ? *', '2026-01-15T00:00:00Z', 3)).toEqual([
        '2026-01-31T12:00:00.000Z',
        '2026-02-28T12:00:00.000Z',
        '2026-03-31T12:00:00.000Z',
      ]);
      expect(upcomingIso('0 0 12 L 2 ? *', '2028-01-01T00:00:00Z', 1)).toEqual(['2028-02-29T12:00:00.000Z']);
    });

    it('W: nearest weekday to the given day', () => {
      // 2026-02-15 is a Sunday -> Monday the 16th; 2026-08-15 is a Saturday -> Friday the 14th
      expect(upcomingIso('0 0 12 15W * ? *', '2026-02-01T00:00:00Z', 1)).toEqual(['2026-02-16T12:00:00.000Z']);
      expect(upcomingIso('0 0 12 15W * ? *', '2026-08-01T00:00:00Z', 1)).toEqual(['2026-08-14T12:00:00.000Z']);
    });

    it('LW: last weekday of the month', () => {
      // 2026-01-31 is a Saturday, 2026-05-31 a Sunday
      expect(upcomingIso('0 0 12 LW * ? *', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-30T12:00:00.000Z']);
      expect(upcomingIso('0 0 12 LW * ? *', '2026-05-01T00:00:00Z', 1)).toEqual(['2026-05-29T12:00:00.000Z']);
    });

    it('#: nth weekday of the month (6#3 = third Friday, SUN=1 numbering)', () => {
      expect(upcomingIso('0 0 10 ? * 6#3 *', '2026-01-01T00:00:00Z', 2)).toEqual([
        '2026-01-16T10:00:00.000Z',
        '2026-02-20T10:00:00.000Z',
      ]);
      expect(upcomingIso('0 0 10 ? * FRI#3 *', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-16T10:00:00.000Z']);
    });

    it('nL: last given weekday of the month', () => {
      expect(upcomingIso('0 0 10 ? * 6L *', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-30T10:00:00.000Z']);
      expect(upcomingIso('0 0 10 ? * FRIL *', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-30T10:00:00.000Z']);
    });

    it('L-n: n days before the last day, none in a month too short for it', () => {
      expect(upcomingIso('0 15 10 L-2 * ? *', '2026-01-01T00:00:00Z', 2)).toEqual([
        '2026-01-29T10:15:00.000Z',
        '2026-02-26T10:15:00.000Z',
      ]);
      // L-28 in February: the 1st in a leap year, nothing otherwise
      expect(upcomingIso('0 0 12 L-28 2 ? *', '2026-01-01T00:00:00Z', 2)).toEqual([
        '2028-02-01T12:00:00.000Z',
        '2032-02-01T12:00:00.000Z',
      ]);
    });

    it('nW past the end of a short month: Quartz looks at the day it runs into', () => {
      // 31W in April 2027: "April 31" is Saturday May 1, so the Friday before, April 30; in April 2026 (May 1 a
      // Friday) nothing.
      expect(upcomingIso('0 0 12 31W 4 ? *', '2026-01-01T00:00:00Z', 1)).toEqual(['2027-04-30T12:00:00.000Z']);
    });

    it('nW: after the W day has passed, Quartz goes on at day n of the next month, skipping a shorter one', () => {
      // "February 29" 2031 is Saturday March 1, so February's nearest weekday is the 28th; asked from the January
      // fire, Quartz answers March 28, asked from February 1, February 28.
      expect(upcomingIso('0 0 12 29W * ? *', '2031-01-29T12:00:00Z', 1)).toEqual(['2031-03-28T12:00:00.000Z']);
      expect(upcomingIso('0 0 12 29W * ? *', '2031-02-01T00:00:00Z', 1)).toEqual(['2031-02-28T12:00:00.000Z']);
    });

    it('both day fields restricted (our extension): either matches; a bare * leaves the day to the other', () => {
      // the 15th or Mondays; 2026-01-05 and 12 are Mondays
      expect(upcomingIso('0 0 12 15 * MON *', '2026-01-01T00:00:00Z', 3)).toEqual([
        '2026-01-05T12:00:00.000Z',
        '2026-01-12T12:00:00.000Z',
        '2026-01-15T12:00:00.000Z',
      ]);
      expect(upcomingIso('0 0 12 * * MON *', '2026-01-01T00:00:00Z', 2)).toEqual([
        '2026-01-05T12:00:00.000Z',
        '2026-01-12T12:00:00.000Z',
      ]);
    });

    it('both day fields with L and n#k: the last day or the third Friday', () => {
      expect(upcomingIso('0 0 12 L * 6#3 *', '2026-01-01T00:00:00Z', 4)).toEqual([
        '2026-01-16T12:00:00.000Z',
        '2026-01-31T12:00:00.000Z',
        '2026-02-20T12:00:00.000Z',
        '2026-02-28T12:00:00.000Z',
      ]);
    });

    it('LW asked from the last millisecond of the day before (Quartz 2.3.2 skips this fire)', () => {
      // 2026-11-30 is a Monday, the last weekday of November
      expect(upcomingIso('0 0 0 LW * ? *', '2026-11-29T23:59:59.999Z', 1)).toEqual(['2026-11-30T00:00:00.000Z']);
    });

    it('fires nothing after the year bound (the year of parsing + 100, as Quartz)', () => {
      const parsedIn2026 = (expression: string) => parseCronScheduleAt(expression, null, at('2026-07-01T00:00:00Z'));
      expect(iso([parsedIn2026('0 0 12 1 1 ? 2126').next(at('2026-01-01T00:00:00Z'))])).toEqual(['2126-01-01T12:00:00.000Z']);
      expect(parsedIn2026('0 0 12 1 1 ? 2127').next(at('2026-01-01T00:00:00Z'))).toBeNull();
      expect(parsedIn2026('0 0 12 * * ? *').next(at('2126-12-31T12:00:00Z'))).toBeNull();
    });

    it('accepts month and day names, case-insensitively', () => {
      // 2026-01-02 is a Friday; 2026-03-31 a Tuesday, so the next one after it is Friday 2027-01-01
      for (const expression of ['0 30 9 ? JAN-MAR MON-FRI *', '0 30 9 ? jan-mar Mon-Fri *']) {
        expect(upcomingIso(expression, '2026-01-02T10:00:00Z', 1)).toEqual(['2026-01-05T09:30:00.000Z']);
        expect(upcomingIso(expression, '2026-03-31T10:00:00Z', 1)).toEqual(['2027-01-01T09:30:00.000Z']);
      }
    });

    it('numbers days of the week 1-7 with SUN=1 (Quartz)', () => {
      const sundays = parseCronSchedule('0 0 0 ? * 1 *').upcoming(at('2026-01-01T00:00:00Z'), 3);
      expect(iso(sundays)).toEqual(['2026-01-04T00:00:00.000Z', '2026-01-11T00:00:00.000Z', '2026-01-18T00:00:00.000Z']);
      expect(sundays.map((d) => d.getUTCDay())).toEqual([0, 0, 0]);
      expect(parseCronSchedule('0 0 0 ? * 7 *').next(at('2026-01-01T00:00:00Z'))?.getUTCDay()).toBe(6); // SAT
      expect(parseCronSchedule('0 0 0 ? * 2 *').next(at('2026-01-01T00:00:00Z'))?.getUTCDay()).toBe(1); // MON
      expect(upcomingIso('0 0 0 ? * SUN *', '2026-01-01T00:00:00Z', 1)).toEqual(['2026-01-04T00:00:00.000Z']);
    });

    it('accepts Quartz start/step like 0/15', () => {
      expect(upcomingIso('0 0/15 * * * ? *', '2026-01-01T00:00:00Z', 3)).toEqual([
        '2026-01-01T00:15:00.000Z',
        '2026-01-01T00:30:00.000Z',
        '2026-01-01T00:45:00.000Z',
      ]);
    });

    it('upcoming(after, 5) returns 5 strictly increasing dates after `after`', () => {
      const after = at('2026-01-01T00:00:00Z');
      const runs = parseCronSchedule('0 */7 * * * ? *').upcoming(after, 5);
      expect(runs).toHaveLength(5);
      expect(runs[0].getTime()).toBeGreaterThan(after.getTime());
      runs.slice(1).forEach((run, i) => expect(run.getTime()).toBeGreaterThan(runs[i].getTime()));
      expect(parseCronSchedule('0 */7 * * * ? *').upcoming(after, 0)).toEqual([]);
    });

    it('normalizes whitespace and defaults the timezone to UTC', () => {
      const schedule = parseCronSchedule('  0  0\t12 * *   ? * ', null);
      expect(schedule.expression).toBe('0 0 12 * * ? *');
      expect(schedule.timezone).toBe('UTC');
      expect(parseCronSchedule('0 0 12 * * ? *').timezone).toBe('UTC');
    });

    it('starts no timers', () => {
      jest.useFakeTimers({ now: at('2026-01-01T00:00:00Z') });
      try {
        parseCronSchedule('* * * * * ? *', 'Europe/Berlin').upcoming(at('2026-01-01T00:00:00Z'), 3);
        expect(jest.getTimerCount()).toBe(0);
      } finally {
        jest.useRealTimers();
      }
    });
  });

  describe('timezones', () => {
    it('fires at the wall-clock time of the timezone (America/New_York: 13:00Z in summer, 14:00Z in winter)', () => {
      const schedule = parseCronSchedule('0 0 9 * * ? *', 'America/New_York');
      expect(schedule.timezone).toBe('America/New_York');
      expect(iso([schedule.next(at('2026-01-15T00:00:00Z'))])).toEqual(['2026-01-15T14:00:00.000Z']);
      expect(iso([schedule.next(at('2026-07-15T00:00:00Z'))])).toEqual(['2026-07-15T13:00:00.000Z']);
    });

    describe('DST spring forward (Europe/Berlin 2026-03-29, 02:00 CET -> 03:00 CEST): times in the gap are skipped', () => {
      it('a fixed time in the gap does not fire that day, nor at a shifted time', () => {
        expect(upcomingIso('0 30 2 * * ? *', '2026-03-28T12:00:00Z', 2, 'Europe/Berlin')).toEqual([
          '2026-03-30T00:30:00.000Z', // 02:30 CEST on the 30th; nothing on the 29th, not 03:00 either
          '2026-03-31T00:30:00.000Z',
        ]);
      });

      it('an interval job skips the missing hour', () => {
        expect(upcomingIso('0 0/30 * * * ? *', '2026-03-29T00:10:00Z', 3, 'Europe/Berlin')).toEqual([
          '2026-03-29T00:30:00.000Z', // 01:30 CET
          '2026-03-29T01:00:00.000Z', // 03:00 CEST
          '2026-03-29T01:30:00.000Z', // 03:30 CEST
        ]);
      });

      it('America/New_York 2026-03-08 behaves the same', () => {
        expect(upcomingIso('0 30 2 * * ? *', '2026-03-07T12:00:00Z', 1, 'America/New_York')).toEqual([
          '2026-03-09T06:30:00.000Z',
        ]);
      });
    });

    describe('DST fall back (Europe/Berlin 2026-10-25, 03:00 CEST -> 02:00 CET): a repeated time fires once', () => {
      it('a fixed time in the repeated hour fires once, at the first occurrence', () => {
        expect(upcomingIso('0 30 2 * * ? *', '2026-10-24T12:00:00Z', 2, 'Europe/Berlin')).toEqual([
          '2026-10-25T00:30:00.000Z', // 02:30 CEST; not again at 01:30Z (02:30 CET)
          '2026-10-26T01:30:00.000Z',
        ]);
      });

      it('does not fire at the second occurrence when asked between the two', () => {
        expect(upcomingIso('0 30 2 * * ? *', '2026-10-25T00:45:00Z', 1, 'Europe/Berlin')).toEqual([
          '2026-10-26T01:30:00.000Z',
        ]);
        expect(upcomingIso('0 0/30 * * * ? *', '2026-10-25T00:45:00Z', 1, 'Europe/Berlin')).toEqual([
          '2026-10-25T02:00:00.000Z', // 03:00 CET: 02:00 and 02:30 CET already happened as CEST
        ]);
      });

      it('a list of hours fires once per wall-clock time', () => {
        expect(upcomingIso('0 30 1,2 * * ? *', '2026-10-24T12:00:00Z', 3, 'Europe/Berlin')).toEqual([
          '2026-10-24T23:30:00.000Z', // 01:30 CEST
          '2026-10-25T00:30:00.000Z', // 02:30 CEST
          '2026-10-26T00:30:00.000Z', // 01:30 CET next day
        ]);
      });

      it('an interval job does not repeat the hour', () => {
        expect(upcomingIso('0 0/30 * * * ? *', '2026-10-24T23:10:00Z', 5, 'Europe/Berlin')).toEqual([
          '2026-10-24T23:30:00.000Z', // 01:30 CEST
          '2026-10-25T00:00:00.000Z', // 02:00 CEST
          '2026-10-25T00:30:00.000Z', // 02:30 CEST
          '2026-10-25T02:00:00.000Z', // 03:00 CET
          '2026-10-25T02:30:00.000Z', // 03:30 CET
        ]);
      });

      it('America/New_York 2026-11-01 behaves the same', () => {
        expect(upcomingIso('0 0/30 1 * * ? *', '2026-10-31T12:00:00Z', 3, 'America/New_York')).toEqual([
          '2026-11-01T05:00:00.000Z', // 01:00 EDT
          '2026-11-01T05:30:00.000Z', // 01:30 EDT; not again as EST
          '2026-11-02T06:00:00.000Z',
        ]);
      });
    });
  });

  describe('rejections', () => {
    const rejection = (expression: string, timezone?: string | null): CronExpressionError => {
      try {
        parseCronSchedule(expression, timezone);
      } catch (error) {
        expect(error).toBeInstanceOf(CronExpressionError);
        return error as CronExpressionError;
      }
      throw new Error(`'${expression}' was accepted`);
    };

    it.each([
      ['5 fields', '* * * * *', 5],
      ['6 fields', '0 * * * * ?', 6],
      ['8 fields', '0 0 0 * * ? * *', 8],
      ['garbage', 'hello world', 2],
      ['an empty expression', '   ', 0],
    ])('%s', (_name, expression, count) => {
      const { message } = rejection(expression);
      expect(message).toContain('7 fields');
      expect(message).toContain('sec min hour day-of-month month day-of-week year');
      expect(message).toContain(`got ${count}`);
    });

    it('? outside day-of-month and day-of-week', () => {
      expect(rejection('0 0 ? * * ? *').message).toMatch(/'\?'.*hour/);
      expect(rejection('0 0 0 1,? * ? *').message).toMatch(/'\?'.*day-of-month/);
    });

    it('unknown timezone', () => {
      expect(rejection('0 0 12 * * ? *', 'Mars/Olympus_Mons').message).toBe('unknown timezone "Mars/Olympus_Mons"');
      expect(rejection('0 0 12 * * ? *', '').message).toMatch(/timezone/);
    });

    it('does not refuse an expression whose fire times are all past: next() is null', () => {
      expect(parseCronSchedule('0 0 0 1 1 ? 2020').next(at('2026-01-01T00:00:00Z'))).toBeNull();
      expect(parseCronSchedule('0 0 0 30 2 ? *').upcoming(at('2026-01-01T00:00:00Z'), 5)).toEqual([]);
      expect(parseCronSchedule('0 0 0 * * ? 0').next(at('2026-01-01T00:00:00Z'))).toBeNull(); // Quartz takes year 0
    });

    it('out-of-range values', () => {
      expect(rejection('61 * * * * ? *').message).toMatch(/second value 61 is out of range 0-59/);
      expect(rejection('0 0 24 * * ? *').message).toMatch(/hour value 24/);
      expect(rejection('0 0 0 1 13 ? *').message).toMatch(/month value 13/);
      expect(rejection('0 0 0 32W * ? *').message).toMatch(/day-of-month value 32/);
      expect(rejection('0 0 0 ? * 0 *').message).toMatch(/day-of-week value 0 is out of range 1-7 \(1 = SUN/);
      expect(rejection('0 0 0 ? * 2-8 *').message).toMatch(/day-of-week value 8/);
      expect(rejection('0 0 0 ? * 2#6 *').message).toMatch(/'#' must be followed by a number from 1 to 5.*'2#6'/);
      expect(rejection('0 0 0 L-31 * ? *').message).toMatch(/offset from the last day must be at most 30/);
    });

    it('what Quartz refuses', () => {
      expect(rejection('0 0 0 ? * 6#L *').message).toMatch(/'#' must be followed by a number/);
      expect(rejection('0 0 0 L,15 * ? *').message).toMatch(/'L' cannot be combined/);
      expect(rejection('0 0 0 ? * 2#1,3#2 *').message).toMatch(/only one '#'/);
      expect(rejection('0 0 0 1 1 ? 2030-2020').message).toMatch(/start year must be before the end year/);
      expect(rejection('a b c d e f g').message).toMatch(/names are only allowed in the month and day-of-week fields/);
      expect(rejection('0 0 0 ? FOO * *').message).toMatch(/'FOO' is not a month/);
    });

    it('what Quartz accepts but cannot compute a time for', () => {
      expect(rejection('0 0 L * * ? *').message).toMatch(/the hour field \('L'\) allows no value/);
      expect(rejection('0 0 0 0W * ? *').message).toMatch(/day 0 has no nearest weekday/);
    });
  });
});

describe('bounded evaluation', () => {
  // Work, not time (bench/cron.mjs times it): months searched and Intl timezone look-ups per next(), for the
  // shapes that cost most. Parsed in 2026: the year bound is 2126, so at most 101 years of 12 months.
  const MAX_MONTHS = 12 * 101 + 12;
  // 3 look-ups to place the start and a candidate, then per DST gap in the way about 11 (docs/cron.md); up to two
  // transitions a year.
  const MAX_ZONE_LOOKUPS = 3 + 12 * 2 * 101;

  it.each([
    ['0 30 2 ? 3 1#2 2030-2199', 'America/New_York'], // every fire in a spring-forward gap
    ['0 30 2 ? 3 1#2 2030-9999', 'America/New_York'],
    ['* * 2 ? 3 1#2 *', 'America/New_York'], // every second of the gap hour
    ['*/1 * 2 ? 10 1#1 *', 'Australia/Lord_Howe'], // 30-minute gap on the first Sunday of October
    ['0 0 0 29 2 ? 2096-2199/4', 'UTC'],
    ['0 0 0 31 2 ? *', 'UTC'], // never fires
    ['0 0 0 ? 2 1#5 *', 'Europe/Berlin'],
    ['59 59 23 31 12 ? 2126', 'Pacific/Kiritimati'],
    ['0 30 1 ? 11 1#1 *', 'America/New_York'], // every fire in a repeated hour
  ])('%s in %s', (expression, timezone) => {
    const meter: CronWorkMeter = { months: 0, zoneLookups: 0 };
    const schedule = parseCronScheduleAt(expression, timezone, new Date('2026-07-01T00:00:00Z'), meter);
    for (const start of ['2026-01-01T00:00:00Z', '2026-11-01T05:30:00Z', '2029-03-11T06:59:59Z']) {
      meter.months = 0;
      meter.zoneLookups = 0;
      schedule.next(new Date(start));
      expect(meter.months).toBeLessThanOrEqual(MAX_MONTHS);
      expect(meter.zoneLookups).toBeLessThanOrEqual(MAX_ZONE_LOOKUPS);
    }
  });

  it('a gap in the way of every candidate costs a few look-ups per year, not one per second of the gap', () => {
    const meter: CronWorkMeter = { months: 0, zoneLookups: 0 };
    const schedule = parseCronScheduleAt('* * 2 ? 3 1#2 *', 'America/New_York', new Date('2026-07-01T00:00:00Z'), meter);
    // 02:xx on the second Sunday of March never exists in New York: nothing fires, 100 gaps are crossed.
    expect(schedule.next(new Date('2026-04-01T00:00:00Z'))).toBeNull();
    expect(meter.zoneLookups).toBeGreaterThan(100);
    expect(meter.zoneLookups).toBeLessThanOrEqual(3 + 12 * 100);
  });
});
