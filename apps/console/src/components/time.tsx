import { formatDistanceToNowStrict, formatISO9075 } from 'date-fns';

/** A moment, relative ("3 minutes ago") with the exact local time on hover. */
export function When({ at }: { at: string | number | null | undefined }) {
  if (at === null || at === undefined || at === '') return <span className="muted">—</span>;
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return <span className="muted">—</span>;
  return (
    <time dateTime={date.toISOString()} title={formatISO9075(date)}>
      {formatDistanceToNowStrict(date, { addSuffix: true })}
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
