/**
 * A parsed cron expression: what each field allows, in wall-clock terms (no timezone yet).
 * Day-of-week numbers are Quartz's: 1 = SUN ... 7 = SAT.
 */
export interface CronRules {
  /** Sorted ascending, no duplicates. */
  readonly seconds: readonly number[];
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly months: readonly number[];
  /** Only years up to the year bound (later ones never fire), sorted ascending. */
  readonly years: readonly number[];
  /** null: the field does not restrict the day (`?`, or `*` while the other day field restricts it). */
  readonly dayOfMonth: DayOfMonthRule | null;
  readonly dayOfWeek: DayOfWeekRule | null;
}

export type DayOfMonthRule =
  /** `5`, `1-15`, `*\/2`, ...: these days (a day a month does not have does not fire in it). */
  | { readonly kind: 'days'; readonly days: readonly number[] }
  /** `L` (offset 0), `L-n`; with `W` (`LW`, `L-nW`) the nearest weekday to that day. */
  | { readonly kind: 'last'; readonly offset: number; readonly nearestWeekday: boolean }
  /** `nW`: the weekday nearest to day n. */
  | { readonly kind: 'nearest-weekday'; readonly day: number };

export type DayOfWeekRule =
  /** `2`, `MON-FRI`, `L` (= 7, SAT), ...: these days of the week. */
  | { readonly kind: 'weekdays'; readonly weekdays: readonly number[] }
  /** `nL`: the last such day of the month. */
  | { readonly kind: 'last'; readonly weekday: number }
  /** `n#k`: the k-th such day of the month (none when the month has fewer). */
  | { readonly kind: 'nth'; readonly weekday: number; readonly nth: number };
