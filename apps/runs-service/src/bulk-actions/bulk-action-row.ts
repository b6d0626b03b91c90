import { BulkActionDto, BulkActionKind, BulkActionRunDto, BulkActionStatus, ReplayInstructions } from '@aas/contracts';

/** A bulk_actions row as the store reads it (migration BulkActions1764960000000). */
export interface BulkActionRow {
  id: string;
  user_id: string;
  action: BulkActionKind;
  filter: Record<string, string> | null;
  instructions: ReplayInstructions | null;
  status: BulkActionStatus;
  matched: number;
  done: number;
  failed: number;
  skipped: number;
  chunk: number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** A bulk_action_runs row as the list of an action's runs reads it. */
export interface BulkActionRunRow {
  run_id: string;
  agent_id: string;
  result: BulkActionRunDto['result'];
  detail: string | null;
  result_run_id: string | null;
  finished_at: Date | null;
}

export function toBulkActionRunDto(row: BulkActionRunRow): BulkActionRunDto {
  return { ...row, finished_at: row.finished_at?.toISOString() ?? null };
}

/** One resolved run of an action, not yet reached. */
export interface PendingBulkRun {
  position: number;
  run_id: string;
  agent_id: string;
}

/** What happened to one run: applied (done), refused (failed, with why) or left as it was (skipped). */
export type BulkRunOutcome =
  | { result: 'done'; resultRunId: string | null }
  | { result: 'failed'; detail: string }
  | { result: 'skipped'; detail: string };

export const ACTIVE_STATUSES: readonly BulkActionStatus[] = ['queued', 'running'];

export function isActive(status: BulkActionStatus): boolean {
  return ACTIVE_STATUSES.includes(status);
}

export function toBulkActionDto(row: BulkActionRow): BulkActionDto {
  const [matched, done, failed, skipped] = [row.matched, row.done, row.failed, row.skipped].map(Number);
  return {
    bulk_action_id: row.id,
    action: row.action,
    status: row.status,
    filter: row.filter,
    instructions: row.action === 'replay' ? (row.instructions ?? 'original') : null,
    matched,
    done,
    failed,
    skipped,
    pending: matched - done - failed - skipped,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
  };
}
