import { format } from 'date-fns';
import type { ReactNode } from 'react';
import type { SetURLSearchParams } from 'react-router';

/** The run list filters both run lists take (the per-agent list and the list across agents). */
export const RUN_FILTERS = ['filter_status', 'filter_policy_group', 'filter_trigger_kind', 'filter_goal', 'filter_started_after', 'filter_started_before'] as const;
/** What can start a run (the API's run_kind and its filter_trigger_kind). */
export const STARTED_BY: Record<string, string> = { api: 'the API or console', schedule: 'the schedule', webhook: 'an inbound webhook', event: 'an event trigger' };
const STATUSES = ['in_progress', 'completed', 'error', 'stopped', 'paused', 'finished'];

/** The API query of the filters in the URL; times go as ISO 8601 UTC whatever the URL holds. */
export function runQuery(params: URLSearchParams, names: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of names) {
    const value = params.get(name);
    if (!value) continue;
    const time = name.startsWith('filter_started') ? new Date(value) : null;
    if (time && Number.isNaN(time.getTime())) continue;
    query[name] = time ? time.toISOString() : value;
  }
  return query;
}

/** A URL time (ISO 8601, or an older local datetime-local value) as the local value a datetime-local field shows. */
export function localInputValue(value: string | null): string {
  if (!value) return '';
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? '' : format(time, "yyyy-MM-dd'T'HH:mm");
}

/** A changer of one filter in the URL: an empty value removes it, and any change goes back to page 1. */
export function filterSetter(params: URLSearchParams, setParams: SetURLSearchParams) {
  return (name: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    next.delete('page');
    setParams(next);
  };
}

/** The filter fields, each saved in the URL (a reload or a shared link keeps them); `extra` adds fields before them. */
export function RunFilters({ params, setFilter, extra, open }: { params: URLSearchParams; setFilter: (name: string, value: string) => void; extra?: ReactNode; open: boolean }) {
  const time = (name: string) => (e: { target: { value: string } }) => setFilter(name, e.target.value ? new Date(e.target.value).toISOString() : '');
  return (
    <details className="filters" open={open}>
      <summary>Filters</summary>
      <div className="grid filter-grid">
        {extra}
        <label>
          Status
          <select value={params.get('filter_status') ?? ''} onChange={(e) => setFilter('filter_status', e.target.value)}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Kind
          <select value={params.get('filter_policy_group') ?? ''} onChange={(e) => setFilter('filter_policy_group', e.target.value)}>
            <option value="">any</option>
            <option value="builder">builds</option>
            <option value="runner">runs</option>
          </select>
        </label>
        <label>
          Started by
          <select value={params.get('filter_trigger_kind') ?? ''} onChange={(e) => setFilter('filter_trigger_kind', e.target.value)}>
            <option value="">anything</option>
            {Object.entries(STARTED_BY).map(([kind, label]) => (
              <option key={kind} value={kind}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Goal contains
          <input
            type="search"
            key={params.get('filter_goal') ?? ''}
            defaultValue={params.get('filter_goal') ?? ''}
            onBlur={(e) => setFilter('filter_goal', e.target.value)}
            onKeyDown={(e) => e.key === 'Enter' && setFilter('filter_goal', e.currentTarget.value)}
          />
        </label>
        <label>
          Started after
          <input type="datetime-local" value={localInputValue(params.get('filter_started_after'))} onChange={time('filter_started_after')} />
        </label>
        <label>
          Started before
          <input type="datetime-local" value={localInputValue(params.get('filter_started_before'))} onChange={time('filter_started_before')} />
        </label>
      </div>
    </details>
  );
}
