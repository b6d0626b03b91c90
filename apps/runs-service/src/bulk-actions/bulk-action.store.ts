import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { BulkActionKind, EventNames, ReplayInstructions } from '@aas/contracts';
import { recordEvent, transactionOn } from '@aas/platform';
import { DomainError } from '@aas/problem-details';
import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { BulkActionRow, BulkActionRunRow, BulkRunOutcome, PendingBulkRun } from './bulk-action-row';
import { UserBulkActivity } from './bulk-action-limits';

/** A new action, and the statement that selects its runs (`id`, `agent_id`, in order). */
export interface NewBulkAction {
  userId: string;
  action: BulkActionKind;
  filter: Record<string, string> | null;
  instructions: ReplayInstructions | null;
  idempotencyKey: string | null;
  runs: { sql: string; parameters: unknown[] };
}

/** Refuses the creation, rolled back, given what was found (limits are the service's decision). */
export type CreationCheck = (activity: UserBulkActivity) => DomainError | null;

const COUNT = { done: 'done', failed: 'failed', skipped: 'skipped' } as const;

/**
 * bulk_actions and bulk_action_runs (migration BulkActions1764960000000). Each method is its own
 * transaction: an action's runs are resolved in the one that stores it, and each run's result with its count.
 */
@Injectable()
export class BulkActionStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Under the user's lock: an earlier action of the same key is answered (created false); else the
   * limits are checked, the action stored with its runs (at most `maxRuns`: one more refuses it) and its
   * first chunk recorded to the outbox, all in one transaction.
   */
  create(action: NewBulkAction, maxRuns: number, check: CreationCheck, tooMany: () => DomainError): Promise<{ row: BulkActionRow; created: boolean }> {
    return transactionOn(this.dataSource, async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('bulk_actions:' || $1))`, [action.userId]);
      if (action.idempotencyKey !== null) {
        const [earlier] = await manager.query(`SELECT * FROM bulk_actions WHERE user_id = $1 AND idempotency_key = $2`, [action.userId, action.idempotencyKey]);
        if (earlier) return { row: earlier, created: false };
      }
      const refusal = check(await this.activity(manager, action.userId));
      if (refusal) throw refusal;
      const id = randomUUID();
      await manager.query(
        `INSERT INTO bulk_actions (id, user_id, action, filter, instructions, idempotency_key) VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, action.userId, action.action, action.filter === null ? null : JSON.stringify(action.filter), action.instructions, action.idempotencyKey],
      );
      const matched = await this.resolveRuns(manager, id, action.runs, maxRuns);
      if (matched > maxRuns) throw tooMany();
      const [[row]] = await manager.query(
        `UPDATE bulk_actions SET matched = $2,
                status = CASE WHEN $2 = 0 THEN 'completed' ELSE status END,
                finished_at = CASE WHEN $2 = 0 THEN now() END
          WHERE id = $1 RETURNING *`,
        [id, matched],
      );
      if (matched > 0) await recordEvent(manager, EventNames.BulkActionChunk, { bulk_action_id: id, chunk: 1 });
      return { row, created: true };
    });
  }

  async find(userId: string, id: string): Promise<BulkActionRow | undefined> {
    const [row] = await this.dataSource.query(`SELECT * FROM bulk_actions WHERE id = $1 AND user_id = $2`, [id, userId]);
    return row;
  }

  async list(userId: string, offset: number, limit: number): Promise<{ rows: BulkActionRow[]; total: number }> {
    const [rows, [{ total }]] = await Promise.all([
      this.dataSource.query(`SELECT * FROM bulk_actions WHERE user_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`, [userId, offset, limit]),
      this.dataSource.query(`SELECT count(*)::int AS total FROM bulk_actions WHERE user_id = $1`, [userId]),
    ]);
    return { rows, total };
  }

  /** The action's runs in the order it reaches them, with their results. */
  async runs(id: string, offset: number, limit: number): Promise<BulkActionRunRow[]> {
    return this.dataSource.query(
      `SELECT run_id, agent_id, result, detail, result_run_id, finished_at FROM bulk_action_runs
        WHERE bulk_action_id = $1 ORDER BY position OFFSET $2 LIMIT $3`,
      [id, offset, limit],
    );
  }

  /** Aborts an active action: the row after, or undefined when it is not the user's or already finished (the caller tells which). */
  async abort(userId: string, id: string): Promise<BulkActionRow | undefined> {
    const [rows] = await this.dataSource.query(
      `UPDATE bulk_actions SET status = 'aborted', finished_at = now()
        WHERE id = $1 AND user_id = $2 AND status IN ('queued', 'running') RETURNING *`,
      [id, userId],
    );
    return rows[0];
  }

  /**
   * The chunk `chunk` of the action, if it is still due (the action active and its counter there): the
   * action, marked running, and its next `size` runs not yet reached.
   */
  claimChunk(id: string, chunk: number, size: number): Promise<{ row: BulkActionRow; runs: PendingBulkRun[] } | null> {
    return transactionOn(this.dataSource, async (manager) => {
      const [[row]] = await manager.query(
        `UPDATE bulk_actions SET status = 'running', started_at = coalesce(started_at, now())
          WHERE id = $1 AND chunk = $2 AND status IN ('queued', 'running') RETURNING *`,
        [id, chunk],
      );
      if (!row) return null;
      const runs = await manager.query(
        `SELECT position, run_id, agent_id FROM bulk_action_runs WHERE bulk_action_id = $1 AND result IS NULL ORDER BY position LIMIT $2`,
        [id, size],
      );
      return { row, runs };
    });
  }

  async isActive(id: string): Promise<boolean> {
    const [row] = await this.dataSource.query(`SELECT status IN ('queued', 'running') AS active FROM bulk_actions WHERE id = $1`, [id]);
    return row?.active === true;
  }

  /** One run's result and its count, together; a result already recorded (a chunk taken up again) counts nothing. */
  record(id: string, run: PendingBulkRun, outcome: BulkRunOutcome): Promise<void> {
    return transactionOn(this.dataSource, async (manager) => {
      const [, updated]: [unknown, number] = await manager.query(
        `UPDATE bulk_action_runs SET result = $3, detail = $4, result_run_id = $5, finished_at = now()
          WHERE bulk_action_id = $1 AND position = $2 AND result IS NULL`,
        [id, run.position, outcome.result, 'detail' in outcome ? outcome.detail : null, 'resultRunId' in outcome ? outcome.resultRunId : null],
      );
      if (updated === 1) await manager.query(`UPDATE bulk_actions SET ${COUNT[outcome.result]} = ${COUNT[outcome.result]} + 1 WHERE id = $1`, [id]);
    });
  }

  /**
   * After chunk `chunk`: while the action is still running and has runs left, its next chunk goes to
   * the outbox (to the back of the queue); without runs left it is completed.
   */
  finishChunk(id: string, chunk: number): Promise<void> {
    return transactionOn(this.dataSource, async (manager) => {
      const [[row]] = await manager.query(
        `UPDATE bulk_actions SET chunk = chunk + 1,
                status = CASE WHEN EXISTS (SELECT 1 FROM bulk_action_runs WHERE bulk_action_id = $1 AND result IS NULL) THEN status ELSE 'completed' END,
                finished_at = CASE WHEN EXISTS (SELECT 1 FROM bulk_action_runs WHERE bulk_action_id = $1 AND result IS NULL) THEN NULL ELSE now() END
          WHERE id = $1 AND chunk = $2 AND status = 'running' RETURNING status, chunk`,
        [id, chunk],
      );
      if (row?.status === 'running') await recordEvent(manager, EventNames.BulkActionChunk, { bulk_action_id: id, chunk: row.chunk });
    });
  }

  /** The action's chunk jobs gave up (every attempt failed): it ends failed, its remaining runs untouched. */
  async fail(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE bulk_actions SET status = 'failed', finished_at = now() WHERE id = $1 AND status IN ('queued', 'running')`, [id]);
  }

  private async activity(manager: EntityManager, userId: string): Promise<UserBulkActivity> {
    const [{ active }] = await manager.query(`SELECT count(*)::int AS active FROM bulk_actions WHERE user_id = $1 AND status IN ('queued', 'running')`, [userId]);
    const recent = await manager.query(`SELECT created_at FROM bulk_actions WHERE user_id = $1 AND created_at > now() - interval '1 hour' ORDER BY created_at`, [userId]);
    return { active, createdLastHour: recent.map((r: { created_at: Date }) => r.created_at) };
  }

  /** Inserts the runs the statement selects, in its order, up to one past `maxRuns`; answers how many. */
  private async resolveRuns(manager: EntityManager, id: string, runs: { sql: string; parameters: unknown[] }, maxRuns: number): Promise<number> {
    const n = runs.parameters.length;
    const [{ inserted }] = await manager.query(
      `WITH resolved AS (
         INSERT INTO bulk_action_runs (bulk_action_id, position, run_id, agent_id)
         SELECT $${n + 1}, row_number() OVER (), m.id, m.agent_id FROM (${runs.sql} LIMIT ${maxRuns + 1}) m
         RETURNING 1
       ) SELECT count(*)::int AS inserted FROM resolved`,
      [...runs.parameters, id],
    );
    return inserted;
  }
}
