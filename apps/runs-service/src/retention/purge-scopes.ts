import { PurgeScope } from './retention.store';

/** Agents whose runs are kept `days` days (their workspace's retention; 0: forever). */
export interface RetentionOverride {
  agentIds: string[];
  days: number;
}

/**
 * The purge passes for an installation default and the workspaces' own retentions: one pass over every
 * agent but those with their own retention (none when the default keeps runs forever), then one per
 * retention of theirs that is not forever.
 */
export function purgeScopes(defaultDays: number, overrides: RetentionOverride[]): PurgeScope[] {
  const exceptAgentIds = overrides.flatMap((o) => o.agentIds);
  const scopes: PurgeScope[] = defaultDays > 0 ? [{ olderThanDays: defaultDays, exceptAgentIds }] : [];
  const byDays = new Map<number, string[]>();
  for (const o of overrides) if (o.days > 0 && o.agentIds.length > 0) byDays.set(o.days, [...(byDays.get(o.days) ?? []), ...o.agentIds]);
  for (const [days, agentIds] of byDays) scopes.push({ olderThanDays: days, agentIds, exceptAgentIds: [] });
  return scopes;
}
