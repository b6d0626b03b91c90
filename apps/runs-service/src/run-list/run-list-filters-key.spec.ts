import { ListRunsMessage } from '@aas/contracts';
import { runListFiltersKey } from './run-list-filters-key';

const scope = { user_id: 'u', agent_id: 'a' };
const key = (fields: Partial<ListRunsMessage>) => runListFiltersKey({ ...scope, ...fields } as ListRunsMessage);

describe('runListFiltersKey', () => {
  it('ignores the page, the page size and the order in which fields arrive', () => {
    const base = key({ filter_goal: 'backups', filter_status: 'completed' });
    expect(key({ filter_status: 'completed', filter_goal: 'backups', page: 7, page_size: 20 })).toBe(base);
  });

  it('tells apart every filter and value, including ones that differ only in case or by name', () => {
    const keys = [
      key({}),
      key({ filter_goal: 'backups' }),
      key({ filter_goal: 'Backups' }),
      key({ filter_goal: 'backups', filter_status: 'completed' }),
      key({ filter_user_email: 'backups' }),
      key({ filter_started_after: '2026-01-01T00:00:00Z' }),
      key({ filter_started_before: '2026-01-01T00:00:00Z' }),
      key({ filter_run_id: '' }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('counts a filter that a later version adds, without a change here', () => {
    const withNew = { ...scope, filter_workspace: 'w1' } as unknown as ListRunsMessage;
    expect(runListFiltersKey(withNew)).not.toBe(key({}));
  });

  it('treats an unset filter as absent, and keeps a long goal short', () => {
    expect(key({ filter_goal: undefined })).toBe(key({}));
    expect(key({ filter_goal: 'x'.repeat(10_000) })).toMatch(/^[\w-]{43}$/);
  });
});
