// The three HTTP-date forms of RFC 9110 section 5.6.7; Date.parse alone would also take strings like "abc 5".
const IMF_FIXDATE = /^[a-z]{3}, \d{2} [a-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/i;
const RFC850_DATE = /^[a-z]{6,9}, \d{2}-[a-z]{3}-\d{2} \d{2}:\d{2}:\d{2} GMT$/i;
const ASCTIME_DATE = /^[a-z]{3} [a-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/i;

/** A Retry-After header (delta-seconds or HTTP-date) as milliseconds from `now`; undefined if absent, invalid or past. */
export function parseRetryAfter(header: string | undefined, now: Date): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  let at = Number.NaN;
  if (IMF_FIXDATE.test(value) || RFC850_DATE.test(value)) at = Date.parse(value);
  // asctime carries no zone but means GMT; without one, Date.parse would read it as local time.
  else if (ASCTIME_DATE.test(value)) at = Date.parse(`${value} GMT`);
  if (Number.isNaN(at) || at < now.getTime()) return undefined;
  return at - now.getTime();
}
