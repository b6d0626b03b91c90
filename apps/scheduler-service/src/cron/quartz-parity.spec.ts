/*
 * Our evaluator against Quartz 2.3.2 itself: quartz-parity.fixture.json holds Quartz's answers (accepted or not,
 * the next 5 fire times) for edge cases, timezones, starts around DST transitions and random expressions.
 * Regenerate it with `node scripts/quartz-oracle/generate.mjs` (docs/cron.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CronExpressionError, parseCronScheduleAt } from './cron-schedule';

interface Row {
  group: 'edge' | 'refused' | 'zone' | 'sparse' | 'random';
  expression: string;
  timezone: string;
  start: string;
  accepted: boolean;
  error?: string;
  quartzError?: string;
  /** Quartz's next 5 fire times. */
  quartz?: string[];
  /** Present where a wall-clock time fell in a DST gap or overlap and our rule answers otherwise than Quartz. */
  dstRule?: string[];
}

// QUARTZ_PARITY_FIXTURE: a wider fixture made with other seeds (scripts/quartz-oracle/generate.mjs).
const fixturePath = process.env.QUARTZ_PARITY_FIXTURE ?? join(__dirname, 'quartz-parity.fixture.json');
const fixture = JSON.parse(readFileSync(fixturePath, 'utf8')) as {
  quartzMaxYear: number;
  rows: Row[];
};
// Quartz fires nothing after the year its JVM started + 100: parse "in" the year the fixture was made.
const parsedAt = new Date(Date.UTC(fixture.quartzMaxYear - 100, 6, 1));
/**
 * Quartz parses these day-of-month forms but its search can loop forever on them; what we do instead
 * (docs/cron.md): `0W` has no meaning and is refused; `L-nW` pointing before the 1st has no fire that month.
 */
function noAnswerCase(row: Row): 'refused' | 'accepted' | undefined {
  const dayOfMonth = row.expression.trim().split(/[ \t]+/)[3];
  if (/^0+W$/i.test(dayOfMonth)) return 'refused';
  if (/^L-\d+W$/i.test(dayOfMonth)) return 'accepted';
  return undefined;
}
const BOTH_DAY_FIELDS = 'Support for specifying both a day-of-week AND a day-of-month parameter is not implemented';

function ours(row: Row): { refused: string } | { fires: string[] } {
  try {
    const schedule = parseCronScheduleAt(row.expression, row.timezone, parsedAt);
    return { fires: schedule.upcoming(new Date(row.start), 5).map((d) => d.toISOString()) };
  } catch (error) {
    if (!(error instanceof CronExpressionError)) throw error;
    return { refused: error.message };
  }
}

/** What we must answer: Quartz's answer, but for the two documented differences and the DST rule. */
function expected(row: Row): { refused: true } | { fires: string[] } | { accepted: true } {
  if (row.expression.trim().split(/[ \t]+/).length !== 7) return { refused: true }; // (a) exactly 7 fields
  if (!row.accepted) {
    // (b): both day fields restricted. Quartz gives the same message when both hold a '?' (e.g. '*,?' and '?').
    const [, , , dayOfMonth, , dayOfWeek] = row.expression.trim().split(/[ \t]+/);
    const noSpec = (field: string) => field.split(',').some((part) => part.startsWith('?'));
    const both = row.error?.startsWith(BOTH_DAY_FIELDS) && !noSpec(dayOfMonth) && !noSpec(dayOfWeek);
    return both ? { accepted: true } : { refused: true };
  }
  if (row.quartzError) return noAnswerCase(row) === 'refused' ? { refused: true } : { accepted: true };
  return { fires: row.dstRule ?? row.quartz! };
}

function mismatches(rows: Row[]) {
  return rows.flatMap((row) => {
    const want = expected(row);
    const got = ours(row);
    const ok =
      'refused' in want ? 'refused' in got
        : 'accepted' in want ? 'fires' in got
          : 'fires' in got && JSON.stringify(got.fires) === JSON.stringify(want.fires);
    return ok ? [] : [{ row, want, got }];
  });
}

describe('Quartz 2.3.2 parity (quartz-parity.fixture.json)', () => {
  const groups = ['edge', 'refused', 'zone', 'sparse', 'random'] as const;

  it('has enough rows with fire times, refusals and DST cases to mean something', () => {
    const rows = fixture.rows;
    expect(rows.filter((r) => r.quartz && r.quartz.length > 0).length).toBeGreaterThanOrEqual(300);
    expect(rows.filter((r) => !r.accepted).length).toBeGreaterThanOrEqual(50);
    expect(rows.filter((r) => r.dstRule).length).toBeGreaterThanOrEqual(20);
    expect(new Set(rows.map((r) => r.timezone)).size).toBeGreaterThanOrEqual(10);
  });

  // Each group's rows are compared below; this one proves the fixture reaches every corner the dialect is hard in.
  it('has at least 20 rows with fire times for every hard corner of the dialect, 300 in all', () => {
    const fields = (r: Row) => r.expression.trim().split(/[ \t]+/);
    const fired = fixture.rows.filter((r) => r.quartz && r.quartz.length > 0 && fields(r).length === 7);
    const corners: Record<string, (f: string[]) => boolean> = {
      'L-n': (f) => /L-\d/i.test(f[3]),
      'nW near a month end': (f) => /(^|[^\d])(2[89]|3[01])W/i.test(f[3]),
      LW: (f) => /LW/i.test(f[3]),
      'nL (last weekday n)': (f) => /\dL/i.test(f[5]),
      '#': (f) => f[5].includes('#'),
      ...Object.fromEntries(['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week', 'year'].map((name, i) => [`steps in ${name}`, (f: string[]) => f[i].includes('/')])),
      years: (f) => /\d/.test(f[6]),
    };
    const counts = Object.fromEntries(Object.entries(corners).map(([name, hits]) => [name, fired.filter((r) => hits(fields(r))).length]));
    expect(Object.entries(counts).filter(([, n]) => n < 20)).toEqual([]);
    expect(fired.filter((r) => Object.values(corners).some((hits) => hits(fields(r)))).length).toBeGreaterThanOrEqual(300);
    // DST: rows where a fire time falls in a gap or an overlap, in several zones.
    expect(new Set(fixture.rows.filter((r) => r.dstRule).map((r) => r.timezone)).size).toBeGreaterThanOrEqual(6);
  });

  it.each(groups)('%s rows: accepted and refused alike, with the same fire times', (group) => {
    expect(mismatches(fixture.rows.filter((r) => r.group === group))).toEqual([]);
  });

  it('DST rows: where Quartz fires a repeated time at its second occurrence, we fire it at the first', () => {
    // Berlin 2026-10-25: 02:30 occurs at 00:30Z (CEST) and at 01:30Z (CET).
    const row = fixture.rows.find(
      (r) => r.expression === '0 30 2 * * ? *' && r.timezone === 'Europe/Berlin' && r.start === '2026-10-24T23:00:00.000Z',
    );
    expect(row?.quartz?.[0]).toBe('2026-10-25T01:30:00.000Z');
    expect(row?.dstRule?.[0]).toBe('2026-10-25T00:30:00.000Z');
    expect(ours(row!)).toEqual({ fires: row!.dstRule });
  });

  it('expressions Quartz accepts but may never answer for (it loops): 0W refused, L-nW answered', () => {
    const stuck = fixture.rows.filter((r) => r.quartzError);
    expect(stuck.length).toBeGreaterThanOrEqual(3);
    expect(stuck.filter((r) => noAnswerCase(r) === undefined)).toEqual([]);
    expect(ours(stuck.find((r) => r.expression === '0 0 0 0W * ? *')!)).toEqual({ refused: expect.stringMatching(/day 0/) });
    // L-30W: in 31-day months the weekday nearest the 1st (March 1 2026 is a Sunday, August 1 a Saturday); in
    // 30-day months "day 0", the previous month's last day, which only a Sunday moves into the month (May 31 2026).
    expect(ours(stuck.find((r) => r.expression === '0 0 0 L-30W * ? *')!)).toEqual({
      fires: ['2026-03-02T00:00:00.000Z', '2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z',
        '2026-07-01T00:00:00.000Z', '2026-08-03T00:00:00.000Z'],
    });
  });
});
