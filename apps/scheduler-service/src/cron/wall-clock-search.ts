/*
 * Wall-clock times an expression matches, with no timezone: a local date-time is held as the epoch ms it would
 * have in UTC ("local ms"), so Date.UTC and getUTC* do the calendar arithmetic (proleptic Gregorian, as Quartz).
 */
import { CronRules, DayOfMonthRule, DayOfWeekRule } from './cron-rules';

const SATURDAY = 7;
const SUNDAY = 1;

/** Counts the work of a search, so tests can bound it without timing it. */
export interface CronWorkMeter {
  /** Months whose days were computed. */
  months: number;
  /** Offset look-ups in the timezone (each one an Intl call). */
  zoneLookups: number;
}

/** Date.UTC, also for years 0-99 (which Date.UTC reads as 1900-1999). */
function localMs(year: number, month: number, day: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

export function daysInMonth(year: number, month: number): number {
  return new Date(localMs(year, month + 1, 0)).getUTCDate();
}

/** 1 = SUN ... 7 = SAT; `day` may run past the month (Quartz reads April 31 as May 1). */
function weekday(year: number, month: number, day: number): number {
  return new Date(localMs(year, month, day)).getUTCDay() + 1;
}

/**
 * Quartz's nearest weekday to `day`: a Saturday moves to the Friday before (to Monday the 3rd when it is the 1st),
 * a Sunday to the Monday after (to Friday when it is the last day). A day past the month's end is the day of the
 * next month it runs into (31W in April looks at May 1), and fires only if the result falls in the month.
 */
function nearestWeekday(year: number, month: number, day: number, lastDay: number): number {
  const dow = weekday(year, month, day);
  if (dow === SATURDAY) return day === 1 ? 3 : day - 1;
  if (dow === SUNDAY) return day === lastDay ? day - 2 : day + 1;
  return day;
}

function dayOfMonthMatches(rule: DayOfMonthRule, year: number, month: number, lastDay: number, into: boolean[]): void {
  if (rule.kind === 'days') {
    for (const day of rule.days) if (day <= lastDay) into[day] = true;
    return;
  }
  // L-n may point before the 1st (L-30 in February): no fire, unless W moves it into the month (day 0 a Sunday).
  const base = rule.kind === 'last' ? lastDay - rule.offset : rule.day;
  const day = rule.kind === 'last' && !rule.nearestWeekday ? base : nearestWeekday(year, month, base, lastDay);
  if (day >= 1 && day <= lastDay) into[day] = true;
}

function dayOfWeekMatches(rule: DayOfWeekRule, year: number, month: number, lastDay: number, into: boolean[]): void {
  const first = weekday(year, month, 1);
  const firstOf = (dow: number) => 1 + ((dow - first + 7) % 7);
  if (rule.kind === 'weekdays') {
    for (const dow of rule.weekdays) for (let day = firstOf(dow); day <= lastDay; day += 7) into[day] = true;
    return;
  }
  // Quartz accepts any number before '#': it reads 0#k as SAT (7), and 8#k or more never fire.
  const dow = rule.weekday === 0 ? 7 : rule.weekday;
  if (dow > 7) return;
  const day = rule.kind === 'nth' ? firstOf(dow) + 7 * (rule.nth - 1) : firstOf(dow) + 7 * Math.floor((lastDay - firstOf(dow)) / 7);
  if (day <= lastDay) into[day] = true;
}

/** The days of the month the expression fires on, ascending. */
export function matchingDays(rules: CronRules, year: number, month: number): number[] {
  const lastDay = daysInMonth(year, month);
  const matches = new Array<boolean>(lastDay + 1).fill(rules.dayOfMonth === null && rules.dayOfWeek === null);
  if (rules.dayOfMonth) dayOfMonthMatches(rules.dayOfMonth, year, month, lastDay, matches);
  if (rules.dayOfWeek) dayOfWeekMatches(rules.dayOfWeek, year, month, lastDay, matches);
  const days: number[] = [];
  for (let day = 1; day <= lastDay; day++) if (matches[day]) days.push(day);
  return days;
}

/** Index of the first element >= value (sorted array), or length. */
function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first matching time of day at or after h:m:s, in seconds since midnight, or null. */
function firstTimeOfDay(rules: CronRules, h: number, m: number, s: number): number | null {
  for (let hi = lowerBound(rules.hours, h); hi < rules.hours.length; hi++) {
    const hour = rules.hours[hi];
    const fromMinute = hour === h ? m : 0;
    for (let mi = lowerBound(rules.minutes, fromMinute); mi < rules.minutes.length; mi++) {
      const minute = rules.minutes[mi];
      const si = lowerBound(rules.seconds, hour === h && minute === m ? s : 0);
      if (si < rules.seconds.length) return hour * 3600 + minute * 60 + rules.seconds[si];
    }
  }
  return null;
}

/**
 * Quartz's search, once the `nW` day of the month it starts in has passed, goes on at day n of the next month;
 * when that month is shorter than n, this runs into the month after, and the next month gets no fire (31W:
 * from March 31 afternoon, the next fire is in May even when April 30 is April's nearest weekday to "April 31").
 * Returns that skipped month as year * 12 + month - 1, or null.
 */
function monthSkippedFromStart(rules: CronRules, from: Date): number | null {
  const rule = rules.dayOfMonth;
  if (rule?.kind !== 'nearest-weekday' || rules.dayOfWeek !== null) return null;
  const [y, mo, d] = [from.getUTCFullYear(), from.getUTCMonth() + 1, from.getUTCDate()];
  const next = y * 12 + mo; // the following month, as year * 12 + month - 1
  if (rule.day <= daysInMonth(Math.floor(next / 12), (next % 12) + 1)) return null;
  const lastDay = daysInMonth(y, mo);
  // The day Quartz's search stands on when it applies the day rule: the start's, or the next if no time is left.
  const onDay = firstTimeOfDay(rules, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds()) === null ? d + 1 : d;
  const target = nearestWeekday(y, mo, rule.day, lastDay);
  return onDay <= lastDay && target < onDay ? next : null;
}

/**
 * The first wall-clock time at or after `fromLocalMs` (whole seconds) that the expression matches, as local ms,
 * or null when there is none up to the last year allowed. Visits each allowed month at most once.
 */
export function nextWallClockTime(rules: CronRules, fromLocalMs: number, meter?: CronWorkMeter): number | null {
  const from = new Date(fromLocalMs);
  const [y, mo, d] = [from.getUTCFullYear(), from.getUTCMonth() + 1, from.getUTCDate()];
  const skipped = monthSkippedFromStart(rules, from);
  for (let yi = lowerBound(rules.years, y); yi < rules.years.length; yi++) {
    const year = rules.years[yi];
    for (let mi = year === y ? lowerBound(rules.months, mo) : 0; mi < rules.months.length; mi++) {
      const month = rules.months[mi];
      const sameMonth = year === y && month === mo;
      if (meter) meter.months++;
      if (year * 12 + month - 1 === skipped) continue;
      for (const day of matchingDays(rules, year, month)) {
        if (sameMonth && day < d) continue;
        const sameDay = sameMonth && day === d;
        const time = sameDay
          ? firstTimeOfDay(rules, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds())
          : firstTimeOfDay(rules, 0, 0, 0);
        if (time !== null) return localMs(year, month, day) + time * 1000;
      }
    }
  }
  return null;
}
