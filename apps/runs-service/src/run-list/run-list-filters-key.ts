import { ListRunsMessage } from '@aas/contracts';
import { createHash } from 'node:crypto';

/**
 * What identifies a run list's total for one agent and user: every `filter_*`
 * field of the request that is set (whatever filters are added later), not the
 * page. A digest, so that a long filter_goal still fits an index key.
 */
export function runListFiltersKey(message: ListRunsMessage): string {
  const filters = Object.entries(message)
    .filter(([name, value]) => name.startsWith('filter_') && value !== undefined && value !== null)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url');
}
