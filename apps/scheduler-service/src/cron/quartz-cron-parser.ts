/*
 * The field grammar of Quartz 2.3.2's CronExpression, decision for decision, so that an expression means here
 * what it means there: the same expressions are accepted (including Quartz's leniencies, e.g. characters after
 * a complete value are ignored: `5X` is `5`) and each yields the same values and flags. docs/cron.md has the
 * dialect; quartz-parity.spec.ts checks it against Quartz itself.
 */
import { CronExpressionError } from './cron-expression-error';
import { CronRules, DayOfMonthRule, DayOfWeekRule } from './cron-rules';

export const FIELD_NAMES = ['second', 'minute', 'hour', 'day-of-month', 'month', 'day-of-week', 'year'] as const;

const enum F {
  Second,
  Minute,
  Hour,
  DayOfMonth,
  Month,
  DayOfWeek,
  Year,
}

const MONTHS: Record<string, number> = {
  JAN: 1, FEB: 2, MAR: 3, APR: 4, MAY: 5, JUN: 6, JUL: 7, AUG: 8, SEP: 9, OCT: 10, NOV: 11, DEC: 12,
};
const WEEKDAYS: Record<string, number> = { SUN: 1, MON: 2, TUE: 3, WED: 4, THU: 5, FRI: 6, SAT: 7 };

/** Allowed values per field (year: any, only the bound limits what fires); `max` wraps ranges like `22-2`. */
const LIMITS: ReadonlyArray<{ min: number; max: number; wrap: number; maxStep: number; hint?: string }> = [
  { min: 0, max: 59, wrap: 60, maxStep: 59 },
  { min: 0, max: 59, wrap: 60, maxStep: 59 },
  { min: 0, max: 23, wrap: 24, maxStep: 23 },
  { min: 1, max: 31, wrap: 31, maxStep: 31 },
  { min: 1, max: 12, wrap: 12, maxStep: 12 },
  { min: 1, max: 7, wrap: 7, maxStep: 7, hint: ' (1 = SUN ... 7 = SAT)' },
  { min: 1970, max: Number.MAX_SAFE_INTEGER, wrap: 0, maxStep: Number.MAX_SAFE_INTEGER },
];
const INT_MAX = 2147483647;
/**
 * Quartz keeps `*` and `?` as the numbers 99 and 98 in the value sets, and numbers typed in are not told apart:
 * `99` is `*` in every field (`99-5` is `0-5` in minutes), `98` is `?` in the day fields. We keep the same sets.
 */
const ALL_SPEC = 99;
const NO_SPEC = 98;
const NONE = -1;

class QuartzFieldParser {
  /** Per field the numbers Quartz would hold, markers included (values above ALL_SPEC are left out). */
  readonly fields: Array<Set<number>> = FIELD_NAMES.map(() => new Set<number>());
  /** Per field the largest number Quartz would hold (its `?` check compares it with NO_SPEC). */
  readonly largest: number[] = FIELD_NAMES.map(() => -Infinity);
  lastDayOfMonth = false;
  lastDayOffset = 0;
  nearestWeekday = false;
  lastDayOfWeek = false;
  nthDayOfWeek = 0;
  private field = F.Second;
  private part = '';

  constructor(private readonly maxYear: number) {}

  parseField(field: F, token: string): void {
    this.field = field;
    this.part = token;
    if ((field === F.DayOfMonth || field === F.DayOfWeek) && token.length > 1 && token.includes('L') && token.includes(',')) {
      this.fail(`'L' cannot be combined with other values in a list`);
    }
    if (field === F.DayOfWeek && token.indexOf('#') !== token.lastIndexOf('#')) {
      this.fail(`only one '#' (nth day of the week) is allowed`);
    }
    for (const part of token.split(',')) {
      if (part === '') continue;
      this.part = part;
      this.parsePart(part);
    }
  }

  private parsePart(s: string): void {
    const c = s[0];
    if (c >= 'A' && c <= 'Z' && s !== 'L' && s !== 'LW' && !/^L-[0-9]*W?$/.test(s)) return this.parseName(s);
    if (c === '?') return this.parseNoSpec(s);
    if (c === '*' || c === '/') return this.parseEvery(s);
    if (c === 'L') return this.parseLast(s);
    if (isDigit(c)) return this.parseNumber(s);
    this.fail(`unexpected character '${c}'`);
  }

  private parseName(s: string): void {
    const names = this.field === F.Month ? MONTHS : this.field === F.DayOfWeek ? WEEKDAYS : null;
    if (!names) this.fail(`names are only allowed in the month and day-of-week fields`);
    const start = this.name(names, s.slice(0, 3));
    let end = NONE;
    if (s[3] === '-') {
      end = this.name(names, s.slice(4, 7));
    } else if (s[3] === '#' && this.field === F.DayOfWeek) {
      this.nthDayOfWeek = this.nth(s.slice(4));
    } else if (s[3] === 'L' && this.field === F.DayOfWeek) {
      this.lastDayOfWeek = true;
    }
    this.addValues(start, end, end === NONE ? 0 : 1);
  }

  private name(names: Record<string, number>, text: string): number {
    const value = names[text];
    if (text.length < 3 || value === undefined) {
      const what = this.field === F.Month ? 'month (JAN-DEC)' : 'day of the week (SUN-SAT)';
      this.fail(`'${text}' is not a ${what}`);
    }
    return value;
  }

  private parseNoSpec(s: string): void {
    // Quartz ignores one character after '?' and refuses more.
    if (s.length > 2) this.fail(`unexpected characters after '?'`);
    if (this.field !== F.DayOfMonth && this.field !== F.DayOfWeek) {
      this.fail(`'?' is only allowed in the day-of-month and day-of-week fields`);
    }
    if (this.field === F.DayOfWeek && !this.lastDayOfMonth) {
      if (this.fields[F.DayOfMonth].size === 0) this.fail(`day-of-month has no value`);
      if (this.largest[F.DayOfMonth] === NO_SPEC) this.fail(`'?' cannot be both the day-of-month and the day-of-week`);
    }
    this.addValues(NO_SPEC, NONE, 0);
  }

  private parseEvery(s: string): void {
    if (s === '*') return this.addValues(ALL_SPEC, NONE, 0);
    if (s[0] === '/' && s.length === 1) this.fail(`'/' must be followed by a number`);
    let step = 1;
    const slash = s[0] === '*' ? 1 : 0;
    if (s[slash] === '/') {
      if (slash + 1 >= s.length) this.fail(`'/' must be followed by a number`);
      step = this.javaInt(s.slice(slash + 1), 'step');
      this.checkStep(step);
    }
    this.addValues(ALL_SPEC, NONE, step);
  }

  private parseLast(s: string): void {
    if (this.field === F.DayOfWeek) return this.addValues(7, 7, 0); // `L` alone in day-of-week is SAT
    if (this.field !== F.DayOfMonth) return; // Quartz ignores it in the other fields
    this.lastDayOfMonth = true;
    let i = 1;
    if (s[1] === '-') {
      if (s.length === 2) this.fail(`'L-' must be followed by a number`);
      const digits = /^[0-9]*/.exec(s.slice(2))![0];
      this.lastDayOffset = this.javaInt(`0${digits}`, 'offset');
      if (this.lastDayOffset > 30) this.fail(`the offset from the last day must be at most 30`);
      i = 2 + digits.length;
    }
    if (s[i] === 'W') this.nearestWeekday = true;
  }

  private parseNumber(s: string): void {
    const digits = /^[0-9]+/.exec(s)![0];
    const value = this.javaInt(digits, 'value');
    if (digits.length === s.length) return this.addValues(value, NONE, -1);
    this.parseAfterNumber(s, digits.length, value);
  }

  private parseAfterNumber(s: string, i: number, value: number): void {
    switch (s[i]) {
      case 'L':
        if (this.field !== F.DayOfWeek) this.fail(`'L' after a number is only allowed in the day-of-week field`);
        if (value < 1 || value > 7) this.outOfRange(value);
        this.lastDayOfWeek = true;
        return this.add(value);
      case 'W':
        if (this.field !== F.DayOfMonth) this.fail(`'W' is only allowed in the day-of-month field`);
        if (value > 31) this.outOfRange(value);
        if (value < 1) this.fail(`day 0 has no nearest weekday (Quartz never answers for it)`);
        this.nearestWeekday = true;
        return this.add(value);
      case '#':
        if (this.field !== F.DayOfWeek) this.fail(`'#' is only allowed in the day-of-week field`);
        this.nthDayOfWeek = this.nth(s.slice(i + 1));
        return this.add(value); // Quartz checks no range here (wall-clock-search.ts)
      case '-':
        return this.parseRange(s, i + 1, value);
      case '/': {
        const step = /^[0-9]+/.exec(s.slice(i + 1))?.[0];
        if (!step) this.fail(`'/' must be followed by a number`);
        // Quartz refuses a one-digit step followed by more characters, and ignores what follows a longer one.
        if (step.length === 1 && i + 2 < s.length) this.fail(`unexpected character after the step`);
        const n = this.javaInt(step, 'step');
        this.checkStep(n);
        return this.addValues(value, NONE, n);
      }
      default:
        return this.addValues(value, NONE, 0); // Quartz ignores what follows a value
    }
  }

  /** `a-b`, `a-b/n`; after the end (or the step) Quartz ignores the rest, and does not check the step's size. */
  private parseRange(s: string, i: number, start: number): void {
    const end = /^[0-9]+/.exec(s.slice(i))?.[0];
    if (!end) this.fail(`a range needs an end value`);
    i += end.length;
    let step = 1;
    if (s[i] === '/') {
      const digits = /^[0-9]+/.exec(s.slice(i + 1))?.[0];
      if (!digits) this.fail(`'/' must be followed by a number`);
      step = this.javaInt(digits, 'step');
    }
    this.addValues(start, this.javaInt(end, 'value'), step);
  }

  private nth(text: string): number {
    const n = /^[+-]?[0-9]+$/.test(text) ? Number(text) : NaN;
    if (!(n >= 1 && n <= 5)) this.fail(`'#' must be followed by a number from 1 to 5`);
    return n;
  }

  /**
   * Adds `start` alone (step 0 or -1), or start..end (end NONE: to the field's maximum) every `step`, as Quartz's
   * addToSet: ALL_SPEC (and NO_SPEC in the day fields) pass its range check and ALL_SPEC starts at the minimum.
   */
  private addValues(start: number, end: number, step: number): void {
    const limits = LIMITS[this.field];
    const isDayField = this.field === F.DayOfMonth || this.field === F.DayOfWeek;
    const exempt = start === ALL_SPEC || (start === NO_SPEC && isDayField) || this.field === F.Year;
    if (!exempt) {
      const tooLow = this.field === F.DayOfWeek ? start === 0 : start < limits.min;
      if (tooLow || start > limits.max) this.outOfRange(start);
      if (end > limits.max) this.outOfRange(end);
    }
    if ((step === 0 || step === -1) && start !== ALL_SPEC) return this.add(start);
    if (start === ALL_SPEC && step <= 0) {
      step = 1;
      this.add(ALL_SPEC);
    }
    const maxValue = this.field === F.Year ? this.maxYear : limits.max;
    const from = start === ALL_SPEC ? limits.min : start;
    let to = end === NONE ? maxValue : end;
    let wrap = 0;
    if (to < from) {
      if (this.field === F.Year) this.fail(`the start year must be before the end year (and a step runs at most to ${this.maxYear})`);
      wrap = limits.wrap;
      to += wrap;
    } else {
      // Quartz adds every value up to `to`; later years never fire, other numbers past ALL_SPEC mean nothing.
      this.largest[this.field] = Math.max(this.largest[this.field], from + Math.floor((to - from) / step) * step);
      to = Math.min(to, this.field === F.Year ? this.maxYear : ALL_SPEC);
    }
    for (let v = from; v <= to; v += step) {
      let value = wrap ? v % wrap : v;
      if (wrap && value === 0 && limits.min === 1) value = wrap;
      this.add(value);
    }
  }

  private add(value: number): void {
    this.fields[this.field].add(value);
    this.largest[this.field] = Math.max(this.largest[this.field], value);
  }

  private checkStep(step: number): void {
    if (step > LIMITS[this.field].maxStep) {
      this.fail(`the step ${step} is larger than ${LIMITS[this.field].maxStep}`);
    }
  }

  /** Integer.parseInt: a value beyond 32 bits is an error in Quartz. */
  private javaInt(text: string, what: string): number {
    const n = /^[+-]?[0-9]+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n > INT_MAX || n < -INT_MAX - 1) this.fail(`'${text}' is not a valid ${what}`);
    return n;
  }

  private outOfRange(value: number): never {
    const { min, max, hint } = LIMITS[this.field];
    const low = this.field === F.DayOfWeek ? 1 : min;
    this.fail(`${FIELD_NAMES[this.field]} value ${value} is out of range ${low}-${max}${hint ?? ''}`);
  }

  fail(reason: string): never {
    throw new CronExpressionError(`${reason} in the ${FIELD_NAMES[this.field]} field ('${this.part}')`);
  }
}

function isDigit(c: string | undefined): c is string {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Java's String.trim(): strips characters up to U+0020 at both ends. */
function javaTrim(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}

/** Splits like Quartz (on spaces and tabs only). */
export function splitCronFields(expression: string): string[] {
  return expression.split(/[ \t]+/).filter((f) => f !== '');
}

/**
 * Parses the 7 fields of an expression (see splitCronFields) as Quartz 2.3.2 does, except that both day fields
 * may be restricted (they then match when either does). Years after `maxYear` are dropped: they never fire.
 * @throws CronExpressionError
 */
export function parseQuartzFields(fields: readonly string[], maxYear: number): CronRules {
  const parser = new QuartzFieldParser(maxYear);
  fields.forEach((field, index) => parser.parseField(index as F, javaTrim(field.toUpperCase())));
  /** The field's values, markers and numbers past its range left out (Quartz only reaches them after all others). */
  const values = (f: F) =>
    [...parser.fields[f]].filter((v) => v !== ALL_SPEC && v !== NO_SPEC && v <= LIMITS[f].max).sort((a, b) => a - b);
  for (const f of [F.Second, F.Minute, F.Hour, F.Month]) {
    // Quartz accepts e.g. `L` in the hour field, but then cannot compute any time.
    if (values(f).length === 0) throw new CronExpressionError(`the ${FIELD_NAMES[f]} field ('${fields[f]}') allows no value`);
  }
  const domNoSpec = parser.fields[F.DayOfMonth].has(NO_SPEC);
  const dowNoSpec = parser.fields[F.DayOfWeek].has(NO_SPEC);
  if (domNoSpec && dowNoSpec) throw new CronExpressionError(`'?' cannot be both the day-of-month and the day-of-week`);
  if (!domNoSpec && !parser.lastDayOfMonth && values(F.DayOfMonth).length === 0) {
    throw new CronExpressionError(`the day-of-month field ('${fields[F.DayOfMonth]}') allows no value`);
  }
  if (!dowNoSpec && parser.fields[F.DayOfWeek].size === 0) {
    throw new CronExpressionError(`the day-of-week field ('${fields[F.DayOfWeek]}') allows no value`);
  }
  const bothRestricted = !domNoSpec && !dowNoSpec;
  // With both day fields given (our extension), a bare `*` in one of them leaves the day to the other one.
  const dayOfMonth = domNoSpec || (bothRestricted && fields[F.DayOfMonth] === '*' && fields[F.DayOfWeek] !== '*')
    ? null
    : dayOfMonthRule(parser, values(F.DayOfMonth));
  const dayOfWeek = dowNoSpec || (bothRestricted && fields[F.DayOfWeek] === '*')
    ? null
    : dayOfWeekRule(parser, values(F.DayOfWeek), Math.min(...parser.fields[F.DayOfWeek]));
  return {
    seconds: values(F.Second),
    minutes: values(F.Minute),
    hours: values(F.Hour),
    months: values(F.Month),
    years: [...parser.fields[F.Year]].filter((y) => y <= maxYear).sort((a, b) => a - b),
    dayOfMonth,
    dayOfWeek,
  };
}

/** Quartz's precedence: L forms, then W (on the smallest day listed), then the plain list. */
function dayOfMonthRule(parser: QuartzFieldParser, days: number[]): DayOfMonthRule {
  if (parser.lastDayOfMonth) return { kind: 'last', offset: parser.lastDayOffset, nearestWeekday: parser.nearestWeekday };
  if (parser.nearestWeekday) return { kind: 'nearest-weekday', day: days[0] };
  return { kind: 'days', days };
}

/**
 * Quartz's precedence: nL, then n#k (each on the smallest number listed, which `#` does not range-check: `0#2`,
 * `9#2`), then the plain list.
 */
function dayOfWeekRule(parser: QuartzFieldParser, weekdays: number[], smallest: number): DayOfWeekRule {
  if (parser.lastDayOfWeek) return { kind: 'last', weekday: smallest };
  if (parser.nthDayOfWeek) return { kind: 'nth', weekday: smallest, nth: parser.nthDayOfWeek };
  return { kind: 'weekdays', weekdays };
}
