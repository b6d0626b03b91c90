/** The "Failed (24 h)" list: the runs that ended in error and started in the 24 hours before `now`. */
export function failedLastDayPath(now: number): string {
  const after = new Date(now - 24 * 3_600_000).toISOString();
  return `/runs?${new URLSearchParams({ filter_status: 'error', filter_started_after: after }).toString()}`;
}
