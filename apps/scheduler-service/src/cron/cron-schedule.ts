/*
 * Schedule cron expressions (spec: "7 fields: sec min hour day month day-of-week year"), Quartz style:
 *
 *   sec min hour day-of-month month day-of-week year      e.g. `0 30 9 ? JAN-MAR MON-FRI *`
 *
 * - Day-of-week numbers are Quartz numbers: 1-7 with 1 = SUN, 2 = MON, ... 6 = FRI, 7 = SAT
 *   (not the Unix 0-6 numbering; 0 is refused). Names SUN-SAT and JAN-DEC work in any case.
 * - `?` is allowed only as the whole day-of-month or day-of-week field.
 * - `L` (last day of month), `W` (nearest weekday, e.g. `15W`), `LW`, `n#k` (k-th weekday n of the month,
 *   e.g. `6#3` = third Friday) and `nL` / `n#L` (last weekday n of the month) work. Quartz offsets such as
 *   `L-3` do not.
 * - Steps work as in Quartz: `a/b` (from a, every b), `a-c/b`, and `/b` after a star.
 * - A day-of-month and a day-of-week that are both restricted match when either matches (OR, croner's default).
 * - Times are wall-clock times in `timezone` (IANA name, default UTC). On DST days a time inside the
 *   spring-forward gap is skipped, and a time that occurs twice on the fall-back day fires once, at its first
 *   occurrence (see CronScheduleImpl.next).
 *
 * Times are computed with croner 11 (paused, no callback: it never starts a timer).
 */
import { Cron, CronPattern } from 'croner';

/** Why a cron expression or timezone was refused; the message is shown to API clients in a 400 detail. */
export class CronExpressionError extends Error {
  override name = 'CronExpressionError';
}

export interface CronSchedule {
  readonly expression: string;
  readonly timezone: string; // IANA name, default 'UTC'
  /** The next fire time strictly after `after`, or null if it never fires again. */
  next(after: Date): Date | null;
  /** Up to `count` next fire times strictly after `after`. */
  upcoming(after: Date, count: number): Date[];
}

const FIELD_NAMES = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week', 'year'] as const;
const DAY_OF_MONTH = 3;
const DAY_OF_WEEK = 5;
/** Allowed plain numbers per field; the year (1-9999) is left to croner, whose message is clear there. */
const NUMBER_RANGES: ReadonlyArray<readonly [number, number] | null> = [
  [0, 59],
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [1, 7],
  null,
];

const DEFAULT_TIMEZONE = 'UTC';
/** Longest clock change looked for when detecting a repeated (fall-back) hour. Real ones are 30 min to 2 h. */
const MAX_CLOCK_CHANGE_MS = 3 * 60 * 60 * 1000;
/**
 * Safety net for next(). Each skip moves past one DST gap or repeated hour, and croner searches no further than
 * the year 3000, so even a job that only ever falls into gaps needs fewer than ~1000 (a few per year).
 */
const MAX_SKIPS = 5000;

/**
 * Parse and validate a 7-field cron expression and an IANA timezone (null/undefined means UTC).
 * @throws CronExpressionError with a message fit for a 400 detail.
 */
export function parseCronSchedule(expression: string, timezone?: string | null): CronSchedule {
  const tz = timezone ?? DEFAULT_TIMEZONE;
  assertKnownTimezone(tz);

  const fields = expression.trim().split(/\s+/).filter((f) => f !== '');
  if (fields.length !== FIELD_NAMES.length) {
    throw new CronExpressionError(
      `cron expression needs 7 fields (sec min hour day-of-month month day-of-week year), got ${fields.length}`,
    );
  }
  fields.forEach(validateField);
  const normalized = fields.join(' ');

  const options = {
    mode: '7-part',
    alternativeWeekdays: true, // Quartz numbering: 1 = SUN ... 7 = SAT
    sloppyRanges: true, // Quartz `0/15` (start/step)
  } as const;
  let cron: Cron;
  let pattern: CronPattern;
  try {
    pattern = new CronPattern(normalized, tz, options);
    cron = new Cron(normalized, { ...options, timezone: tz, paused: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new CronExpressionError(`invalid cron expression: ${message.replace(/^CronPattern:\s*/, '')}`);
  }

  return new CronScheduleImpl(normalized, tz, cron, pattern);
}

function assertKnownTimezone(timezone: string): void {
  try {
    // Accepts every IANA name including 'UTC' (which Intl.supportedValuesOf('timeZone') leaves out).
    new Intl.DateTimeFormat(undefined, { timeZone: timezone });
  } catch {
    throw new CronExpressionError(`unknown timezone ${JSON.stringify(timezone)}`);
  }
  // Newer engines also accept offsets such as '+02:00', which are not IANA names.
  if (/^[+-]/.test(timezone)) throw new CronExpressionError(`unknown timezone ${JSON.stringify(timezone)}`);
}

/** Checks croner does not do (it reads `?` as `*` anywhere) or reports with shifted numbers. */
function validateField(field: string, index: number): void {
  const name = FIELD_NAMES[index];
  if (field.includes('?') && !(field === '?' && (index === DAY_OF_MONTH || index === DAY_OF_WEEK))) {
    throw new CronExpressionError(
      `'?' is only allowed as the whole day-of-month or day-of-week field, not in the ${name} field ('${field}')`,
    );
  }
  if (index === DAY_OF_MONTH && /L-\d/i.test(field)) {
    throw new CronExpressionError(`offsets from the last day ('${field}') are not supported in the day-of-month field`);
  }
  const range = NUMBER_RANGES[index];
  if (!range) return;
  for (const item of field.split(',')) {
    // The value part of `+a-b/step`, `a#nth`, `aL`, `aW`: steps and nth are checked by croner.
    const values = item.replace(/^\+/, '').split('/')[0].split('#')[0].replace(/(LW|L|W)$/i, '');
    for (const value of values.split('-')) {
      if (!/^\d+$/.test(value)) continue; // '*', '?', names, empty: left to croner
      const n = Number(value);
      if (n < range[0] || n > range[1]) {
        const hint = index === DAY_OF_WEEK ? ' (1 = SUN ... 7 = SAT)' : '';
        throw new CronExpressionError(
          `${name} value ${value} is out of range ${range[0]}-${range[1]}${hint} in '${field}'`,
        );
      }
    }
  }
}

class CronScheduleImpl implements CronSchedule {
  private readonly wallClock: Intl.DateTimeFormat;
  private readonly fixedOffset: boolean;

  constructor(
    readonly expression: string,
    readonly timezone: string,
    private readonly cron: Cron,
    private readonly pattern: CronPattern,
  ) {
    this.wallClock = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    this.fixedOffset = this.wallClock.resolvedOptions().timeZone === 'UTC';
  }

  /**
   * croner's own DST handling (Vixie cron style, README "DST handling") differs from ours, so candidates are
   * filtered here:
   * - Spring forward: croner runs a fixed-time job (one value each in sec/min/hour, e.g. `0 30 2 * * ? *`)
   *   whose time falls in the gap at the first valid time after it (03:00 instead of 02:30). We skip such a
   *   candidate: its wall-clock time of day is not one the expression allows. Interval jobs already skip it.
   * - Fall back: croner runs interval jobs (lists, ranges, steps, `*`) at both occurrences of a repeated
   *   wall-clock time. We skip a candidate whose wall-clock time already occurred earlier that night, and jump
   *   to the end of the repeated hour. Fixed-time jobs already run once, at the first occurrence.
   * So every wall-clock time the expression matches fires at most once, and never at another time.
   */
  next(after: Date): Date | null {
    let cursor = after;
    for (let skips = 0; skips < MAX_SKIPS; skips++) {
      const candidate = this.cron.nextRun(cursor);
      if (candidate === null || this.fixedOffset) return candidate;
      if (!this.timeOfDayMatches(candidate)) {
        cursor = candidate; // shifted out of a spring-forward gap
        continue;
      }
      const repeatEnd = this.endOfRepeatedPeriod(candidate);
      if (repeatEnd !== null) {
        cursor = new Date(repeatEnd - 1000); // next run at or after the end of the repeated hour
        continue;
      }
      return candidate;
    }
    throw new Error(`cron schedule '${this.expression}' (${this.timezone}): no run found after ${MAX_SKIPS} DST skips`);
  }

  upcoming(after: Date, count: number): Date[] {
    const runs: Date[] = [];
    let cursor = after;
    while (runs.length < count) {
      const run = this.next(cursor);
      if (run === null) break;
      runs.push(run);
      cursor = run;
    }
    return runs;
  }

  private timeOfDayMatches(instant: Date): boolean {
    const local = this.localFields(instant);
    return !!(this.pattern.second[local.second] && this.pattern.minute[local.minute] && this.pattern.hour[local.hour]);
  }

  /**
   * If `instant` lies in the second pass of a fall-back (its wall-clock time already occurred before the clocks
   * went back), the end of that second pass in epoch ms; otherwise null.
   */
  private endOfRepeatedPeriod(instant: Date): number | null {
    const t = Math.floor(instant.getTime() / 1000) * 1000;
    const offset = this.offsetAt(t);
    const clockChange = this.offsetAt(t - MAX_CLOCK_CHANGE_MS) - offset;
    if (clockChange <= 0) return null; // clocks did not go back in the last hours
    if (this.offsetAt(t - clockChange) !== offset + clockChange) return null; // first pass: no earlier twin
    // Binary search for the instant the clocks went back; the second pass lasts `clockChange` from there.
    let before = t - MAX_CLOCK_CHANGE_MS;
    let changed = t;
    while (changed - before > 1000) {
      const mid = before + Math.floor((changed - before) / 2000) * 1000;
      if (this.offsetAt(mid) === offset) changed = mid;
      else before = mid;
    }
    return changed + clockChange;
  }

  /** UTC offset of the timezone at `ms` (whole seconds), in ms. */
  private offsetAt(ms: number): number {
    const l = this.localFields(new Date(ms));
    return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second) - Math.floor(ms / 1000) * 1000;
  }

  private localFields(instant: Date) {
    const fields = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
    for (const part of this.wallClock.formatToParts(instant)) {
      if (part.type in fields) fields[part.type as keyof typeof fields] = Number(part.value);
    }
    return fields;
  }
}
