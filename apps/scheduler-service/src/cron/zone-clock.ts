/*
 * Wall clock of an IANA timezone, through Intl (the ICU time zone data Node ships). "Local ms" is a local
 * date-time held as the epoch ms it would have in UTC.
 */
import { CronWorkMeter } from './wall-clock-search';

const HOUR_MS = 3_600_000;
/**
 * Offsets are sampled this far on either side of a local time. UTC offsets lie within -12 h..+14 h, so every
 * transition that can make a local time ambiguous or missing (even Pacific/Apia's 24 h jump) lies inside.
 */
const SAMPLE_DISTANCE_MS = 30 * HOUR_MS;

/** Where a local time falls: `instants` is [] in a gap, [t] normally, [first, second] when it occurs twice. */
export interface LocalTimeInstants {
  readonly instants: readonly number[];
  /** UTC offsets (ms) before and after a nearby transition; equal when there is none. */
  readonly offsetBefore: number;
  readonly offsetAfter: number;
}

export class ZoneClock {
  /** Formats e.g. "1/1/2026, GMT+05:45": the offset alone is twice as fast to get from Intl as all fields. */
  private readonly format: Intl.DateTimeFormat;

  constructor(
    timezone: string,
    private readonly meter?: CronWorkMeter,
  ) {
    this.format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' });
  }

  /** The UTC offset (ms) in force at `instant`. */
  offsetAt(instant: number): number {
    if (this.meter) this.meter.zoneLookups++;
    const match = OFFSET.exec(this.format.format(instant));
    if (!match) return 0; // "GMT": UTC itself
    const [, sign, hours, minutes, seconds] = match;
    const ms = ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds ?? 0)) * 1000;
    return sign === '-' ? -ms : ms;
  }

  localMs(instant: number): number {
    return instant + this.offsetAt(instant);
  }

  instantsOf(local: number): LocalTimeInstants {
    const offsetBefore = this.offsetAt(local - SAMPLE_DISTANCE_MS);
    const offsetAfter = this.offsetAt(local + SAMPLE_DISTANCE_MS);
    if (offsetBefore === offsetAfter) return { instants: [local - offsetBefore], offsetBefore, offsetAfter };
    const instants = [local - offsetBefore, local - offsetAfter]
      .filter((instant, i) => this.offsetAt(instant) === (i === 0 ? offsetBefore : offsetAfter))
      .sort((a, b) => a - b);
    return { instants, offsetBefore, offsetAfter };
  }

  /**
   * The instant the offset changes to `offsetAfter`, given the old offset at `before` and the new one at
   * `after`. Transitions fall on whole minutes, but for a few before 1972: the minute is searched first (6
   * look-ups for a 1-hour change), then, only if the change is not at its start, the second.
   */
  transitionBetween(before: number, after: number, offsetAfter: number): number {
    const isAfter = (ms: number) => this.offsetAt(ms) === offsetAfter;
    const minute = search(Math.floor(before / MINUTE_MS), Math.ceil(after / MINUTE_MS), (m) => isAfter(m * MINUTE_MS));
    if (!isAfter(minute * MINUTE_MS - 1000)) return minute * MINUTE_MS;
    return search(minute * 60 - 60, minute * 60 - 1, (s) => isAfter(s * 1000)) * 1000;
  }
}

const MINUTE_MS = 60_000;
const OFFSET = /GMT([+-])(\d\d):(\d\d)(?::(\d\d))?/;

/** The least n in (lo, hi] with isAfter(n), given !isAfter(lo) and isAfter(hi). */
function search(lo: number, hi: number, isAfter: (n: number) => boolean): number {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (isAfter(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
