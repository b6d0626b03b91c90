import { formatDuration, intervalToDuration } from 'date-fns';

/** How long from `from` to `to` (or to `now` while it goes on), in its two largest units: "2 minutes 5 seconds". */
export function durationText(from: string | number, to: string | number | null | undefined, now: number): string {
  const start = new Date(from).getTime();
  const end = to === null || to === undefined ? now : new Date(to).getTime();
  if (Number.isNaN(start) || Number.isNaN(end)) return '—';
  const ms = Math.max(0, end - start);
  if (ms < 1000) return `${ms} ms`;
  const parts = intervalToDuration({ start: 0, end: ms });
  const units = (['days', 'hours', 'minutes', 'seconds'] as const).filter((unit) => parts[unit]);
  return formatDuration(parts, { format: units.slice(0, 2) });
}
