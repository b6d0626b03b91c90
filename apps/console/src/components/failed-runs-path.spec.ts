import { failedLastDayPath } from './failed-runs-path';

describe(failedLastDayPath.name, () => {
  it('asks for the failed runs started in the 24 hours before the click, in UTC', () => {
    const path = failedLastDayPath(Date.parse('2026-03-02T12:30:00Z'));
    const query = new URLSearchParams(path.split('?')[1]);
    expect(path.startsWith('/runs?')).toBe(true);
    expect(query.get('filter_status')).toBe('error');
    expect(query.get('filter_started_after')).toBe('2026-03-01T12:30:00.000Z');
  });
});
