/** What a pasted Unix (5-field) expression becomes: its Quartz equivalent, or why Quartz cannot say it. */
export type Conversion = { quartz: string } | { problem: string };

/** Vixie cron's shorthands, as the five fields they stand for. */
const MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** A Unix day of the week (0-7, 0 and 7 both Sunday) as Quartz numbers it (1-7, Sunday 1). */
const quartzDay = (unix: number): number => (unix % 7) + 1;

/**
 * One list item of a Unix day-of-week field in Quartz's numbering: names stay (both know MON-FRI);
 * a range ending on Sunday (7) becomes the weekdays before it plus 1, as Quartz ranges do not wrap.
 */
function convertDayItem(item: string): string | null {
  const [base, step] = item.split('/');
  if (step !== undefined && !/^\d+$/.test(step)) return null;
  const suffix = step === undefined ? '' : `/${step}`;
  if (base === '*' || /^[A-Za-z]{3}(-[A-Za-z]{3})?$/.test(base)) return base.toUpperCase() + suffix;
  const range = /^(\d)(?:-(\d))?$/.exec(base);
  if (!range) return null;
  const from = Number(range[1]);
  const to = range[2] === undefined ? undefined : Number(range[2]);
  if (from > 7 || (to !== undefined && (to > 7 || to < from))) return null;
  if (to === undefined) return step === undefined ? String(quartzDay(from)) : `${quartzDay(from)}${suffix}`;
  if (from === 0 && to >= 6) return `*${suffix}`;
  if (to === 7 && step === undefined) return from === 7 ? '1' : `${quartzDay(from)}-7,1`;
  if (to === 7) return null; // a step across Sunday's two numbers has no one Quartz range
  return `${quartzDay(from)}-${quartzDay(to)}${suffix}`;
}

function convertDays(field: string): string | null {
  const items = field.split(',').map(convertDayItem);
  return items.every((item) => item !== null) ? items.join(',') : null;
}

/**
 * A 5-field Unix cron expression (minute hour day-of-month month day-of-week, or @daily and the
 * like) as Quartz's 7 fields (second minute hour day-of-month month day-of-week year); null when
 * the text is not 5 fields. Quartz wants `?` in one day field; when both are restricted, Unix
 * fires on either and Quartz cannot say that, so the answer is the problem instead.
 */
export function unixToQuartz(text: string): Conversion | null {
  const trimmed = text.trim();
  const fields = (MACROS[trimmed.toLowerCase()] ?? trimmed).split(/\s+/);
  if (fields.length !== 5 || fields.some((f) => f.includes('?'))) return null;
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields;
  const days = convertDays(dayOfWeek);
  if (days === null) return { problem: `The day of the week "${dayOfWeek}" is not one Unix cron reads (0-7 or SUN-SAT, with ranges, lists and steps).` };
  const anyDayOfMonth = dayOfMonth === '*';
  const anyDayOfWeek = days === '*';
  if (!anyDayOfMonth && !anyDayOfWeek) {
    return {
      problem: `Both day fields are restricted ("${dayOfMonth}" and "${dayOfWeek}"): Unix cron then fires on either, which Quartz cannot express. Keep one and make the other * (or make two schedules).`,
    };
  }
  const [quartzDayOfMonth, quartzDayOfWeek] = anyDayOfWeek ? [dayOfMonth, '?'] : ['?', days];
  return { quartz: ['0', minute, hour, quartzDayOfMonth, month.toUpperCase(), quartzDayOfWeek, '*'].join(' ') };
}
