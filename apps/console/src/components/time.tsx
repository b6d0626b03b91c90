import { formatDistanceStrict, formatISO9075 } from 'date-fns';
import { useSyncExternalStore } from 'react';

/** One clock for every relative time on the page: a single timer, running while any is shown. */
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  timer ??= setInterval(() => listeners.forEach((notify) => notify()), 1000);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** How finely a distance is written: seconds under a minute, minutes under an hour, then hours. */
function granularityMs(distanceMs: number): number {
  return distanceMs < 60_000 ? 1000 : distanceMs < 3_600_000 ? 60_000 : 3_600_000;
}

/**
 * Now, cut to whole units of what the distance to `at` shows, so a time re-renders only when its text
 * changes ("5 seconds ago" every second, "3 hours ago" every hour).
 */
function useNow(at: number): number {
  return useSyncExternalStore(subscribe, () => {
    const distance = Date.now() - at;
    const step = granularityMs(Math.abs(distance));
    return at + Math.trunc(distance / step) * step;
  });
}

/** A moment, relative ("3 minutes ago", ticking as time passes) with the exact local time on hover. */
export function When({ at }: { at: string | number | null | undefined }) {
  if (at === null || at === undefined || at === '') return <span className="muted">—</span>;
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return <span className="muted">—</span>;
  return <Relative date={date} />;
}

function Relative({ date }: { date: Date }) {
  const now = useNow(date.getTime());
  return (
    <time dateTime={date.toISOString()} title={formatISO9075(date)}>
      {formatDistanceStrict(date, now, { addSuffix: true, roundingMethod: 'trunc' })}
    </time>
  );
}

/** Whether the browser knows this IANA time zone (a half-typed one, "America/Chi", is not one). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * A moment written out in an IANA timezone (the schedule's), e.g. "Mon, 1 Dec 2025, 09:30:00 CET";
 * in UTC when the zone is not one the browser knows, so rendering never throws.
 */
export function formatInZone(at: number, timeZone: string): string {
  return new Intl.DateTimeFormat(undefined, {
    timeZone: isTimeZone(timeZone) ? timeZone : 'UTC',
    weekday: 'short',
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(at));
}
