/*
 * Schedule cron expressions: Quartz 2.3.2's CronExpression dialect (docs/cron.md), 7 fields
 *
 *   sec min hour day-of-month month day-of-week year      e.g. `0 30 9 ? JAN-MAR MON-FRI *`
 *
 * evaluated in an IANA timezone. Fire times are Quartz's, checked against Quartz itself in quartz-parity.spec.ts,
 * except at DST transitions, where a local time that does not exist is skipped and one that occurs twice fires
 * once, at its first occurrence. Differences from Quartz: exactly 7 fields; both day fields may be restricted
 * (a day then matches when either matches).
 *
 * Evaluation: the wall-clock search (wall-clock-search.ts) visits each allowed month at most once up to the year
 * bound; the timezone (zone-clock.ts) maps a wall-clock time to an instant, and each DST gap or repeated hour in
 * the way costs one binary search for its transition. So next() is bounded for every expression that parses.
 */
import { CronExpressionError } from './cron-expression-error';
import { CronRules } from './cron-rules';
import { FIELD_NAMES, parseQuartzFields, splitCronFields } from './quartz-cron-parser';
import { CronWorkMeter, nextWallClockTime } from './wall-clock-search';
import { ZoneClock } from './zone-clock';

export { CronExpressionError } from './cron-expression-error';
export type { CronWorkMeter } from './wall-clock-search';

export interface CronSchedule {
  readonly expression: string;
  readonly timezone: string; // IANA name, default 'UTC'
  /** The next fire time strictly after `after`, or null if it never fires again. Never throws. */
  next(after: Date): Date | null;
  /** Up to `count` next fire times strictly after `after`. */
  upcoming(after: Date, count: number): Date[];
}

const DEFAULT_TIMEZONE = 'UTC';
/**
 * Quartz 2.3.2 fires nothing after CronExpression.MAX_YEAR, the year its JVM started + 100. Here: the year the
 * expression was parsed (UTC) + 100.
 */
export const YEARS_AHEAD = 100;

/**
 * Parse and validate a 7-field cron expression and an IANA timezone (null/undefined means UTC). An expression
 * whose fire times are all past parses; its next() is null.
 * @throws CronExpressionError with a message fit for a 400 detail.
 */
export function parseCronSchedule(expression: string, timezone?: string | null): CronSchedule {
  return parseCronScheduleAt(expression, timezone, new Date());
}

/** parseCronSchedule as if parsed at `now` (which sets the year bound); `meter`, if given, counts next()'s work. */
export function parseCronScheduleAt(
  expression: string,
  timezone: string | null | undefined,
  now: Date,
  meter?: CronWorkMeter,
): CronSchedule {
  const tz = timezone ?? DEFAULT_TIMEZONE;
  assertKnownTimezone(tz);
  const fields = splitCronFields(expression);
  if (fields.length !== FIELD_NAMES.length) {
    throw new CronExpressionError(
      `cron expression needs 7 fields (sec min hour day-of-month month day-of-week year), got ${fields.length}`,
    );
  }
  const maxYear = now.getUTCFullYear() + YEARS_AHEAD;
  const rules = parseQuartzFields(fields, maxYear);
  return new QuartzCronSchedule(fields.join(' '), tz, rules, new ZoneClock(tz, meter), maxYear, meter);
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

class QuartzCronSchedule implements CronSchedule {
  /** No fire is possible after this instant (the end of the last year allowed, in any timezone). */
  private readonly lastPossibleInstant: number;

  constructor(
    readonly expression: string,
    readonly timezone: string,
    private readonly rules: CronRules,
    private readonly zone: ZoneClock,
    maxYear: number,
    private readonly meter?: CronWorkMeter,
  ) {
    this.lastPossibleInstant = Date.UTC(maxYear + 1, 0, 2);
  }

  /**
   * Searches wall-clock times from the local time of `after`, then maps each into the timezone:
   * - a time in a spring-forward gap does not exist: skipped, the search resumes at the end of the gap;
   * - a time that occurs twice fires at its first occurrence; if that is already past (`after` lies in the
   *   second pass), the whole repeated period has fired and the search resumes at its end.
   * `local` grows on every turn and the search ends at the year bound, so the loop ends.
   */
  next(after: Date): Date | null {
    const start = Math.floor(after.getTime() / 1000) * 1000 + 1000; // fires are whole seconds
    if (!(start <= this.lastPossibleInstant)) return null; // also NaN
    let local = this.zone.localMs(start);
    for (;;) {
      const wall = nextWallClockTime(this.rules, local, this.meter);
      if (wall === null) return null;
      const { instants, offsetBefore, offsetAfter } = this.zone.instantsOf(wall);
      if (instants.length === 0) {
        local = this.afterGap(wall, offsetBefore, offsetAfter);
      } else if (instants[0] >= start) {
        return new Date(instants[0]);
      } else if (instants.length === 2) {
        const fallBack = this.zone.transitionBetween(instants[0], instants[1], offsetAfter);
        local = Math.max(fallBack + offsetBefore, wall + 1000);
      } else {
        local = wall + 1000; // not reached: a wall-clock time after start's occurs after start
      }
    }
  }

  /**
   * Where to resume after `wall`, a local time in a gap: just after it when the next matching time lies beyond
   * any gap that long (a sparse expression), else at the gap's end (its transition is searched for).
   */
  private afterGap(wall: number, offsetBefore: number, offsetAfter: number): number {
    const following = nextWallClockTime(this.rules, wall + 1000, this.meter);
    if (following === null || following - wall >= offsetAfter - offsetBefore) return wall + 1000;
    const transition = this.zone.transitionBetween(wall - offsetAfter, wall - offsetBefore, offsetAfter);
    return Math.max(transition + offsetAfter, wall + 1000);
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
}
