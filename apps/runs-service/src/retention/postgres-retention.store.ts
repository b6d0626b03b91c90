import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DeleteRunsQuery, EventNames, LiveAgent, RunsPurgedEvent } from '@aas/contracts';
import { OutboxRelay, Transaction, managerOf, recordEvent } from '@aas/platform';
import { DataSource, EntityManager, SelectQueryBuilder } from 'typeorm';
import { RunEntity } from '../database/run.entity';
import { runsAcrossAgents } from '../run-list/postgres-run-list.store';
import { PurgedBatch, PurgeScope, RetentionStore, RunDeletion } from './retention.store';

/** The runs of a purge batch: finished, past the retention, oldest end first. */
const DUE_RUNS = `
  SELECT id FROM runs
   WHERE is_finished AND finished_at < now() - make_interval(days => $1)
     AND ($2::uuid[] IS NULL OR agent_id = ANY($2::uuid[])) AND agent_id <> ALL($3::uuid[])
   ORDER BY finished_at
   LIMIT $4
     FOR UPDATE SKIP LOCKED`;

interface DeletionRow {
  user_id: string;
  id: string;
  agents: LiveAgent[];
  filters: DeleteRunsQuery;
  finished_before: Date;
  matched: string;
  deleted: string;
  created_at: Date;
}

/**
 * Rows are taken with SKIP LOCKED: a purge never waits for a run being changed (a delete through the API,
 * an agent's deletion) nor for another replica's purge. Events go by their foreign key's cascade; the
 * run_list_counts and run_list_generations triggers fire once per statement, as for any delete.
 */
@Injectable()
export class PostgresRetentionStore extends RetentionStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
  ) {
    super();
  }

  purgeBatch(tx: Transaction, scope: PurgeScope, limit: number): Promise<PurgedBatch> {
    return this.deleteRuns(tx, DUE_RUNS, [scope.olderThanDays, scope.agentIds ?? null, scope.exceptAgentIds, limit]);
  }

  async countDeletable(tx: Transaction, userId: string, agents: LiveAgent[], filters: DeleteRunsQuery): Promise<{ matched: number; now: Date }> {
    const [matching, parameters] = deletable(managerOf(this.dataSource, tx), userId, agents, filters).select('1').getQueryAndParameters();
    const [row]: Array<{ matched: string; now: Date }> = await managerOf(this.dataSource, tx).query(
      `SELECT (SELECT count(*) FROM (${matching}) m) AS matched, now() AS now`,
      parameters,
    );
    return { matched: Number(row.matched), now: row.now };
  }

  async insertDeletion(tx: Transaction, deletion: Omit<RunDeletion, 'id' | 'deleted' | 'createdAt'>): Promise<boolean> {
    // An INSERT answers its rows alone (an UPDATE or DELETE: rows and count).
    const rows: unknown[] = await managerOf(this.dataSource, tx).query(
      `INSERT INTO run_deletions (user_id, agents, filters, finished_before, matched) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id) DO NOTHING RETURNING user_id`,
      [deletion.userId, JSON.stringify(deletion.agents), JSON.stringify(deletion.filters), deletion.finishedBefore, deletion.matched],
    );
    return rows.length === 1;
  }

  async findDeletion(userId: string): Promise<RunDeletion | undefined> {
    const rows: DeletionRow[] = await this.dataSource.query(`SELECT * FROM run_deletions WHERE user_id = $1`, [userId]);
    return rows.map(toDeletion)[0];
  }

  async pendingDeletions(): Promise<RunDeletion[]> {
    const rows: DeletionRow[] = await this.dataSource.query(`SELECT * FROM run_deletions ORDER BY created_at`);
    return rows.map(toDeletion);
  }

  async deletionBatch(tx: Transaction, deletion: RunDeletion, limit: number): Promise<PurgedBatch> {
    const manager = managerOf(this.dataSource, tx);
    const [sql, parameters] = deletable(manager, deletion.userId, deletion.agents, deletion.filters, deletion.finishedBefore)
      .select('r.id', 'id')
      .orderBy('r.finished_at')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getQueryAndParameters();
    const batch = await this.deleteRuns(tx, sql, parameters);
    await manager.query(`UPDATE run_deletions SET deleted = deleted + $3 WHERE user_id = $1 AND id = $2`, [
      deletion.userId,
      deletion.id,
      batch.runIds.length,
    ]);
    return batch;
  }

  async deletionRemains(deletion: RunDeletion): Promise<boolean> {
    const [sql, parameters] = deletable(this.dataSource.manager, deletion.userId, deletion.agents, deletion.filters, deletion.finishedBefore)
      .select('1')
      .limit(1)
      .getQueryAndParameters();
    return (await this.dataSource.query(sql, parameters)).length > 0;
  }

  async finishDeletion(deletion: RunDeletion): Promise<void> {
    await this.dataSource.query(`DELETE FROM run_deletions WHERE user_id = $1 AND id = $2`, [deletion.userId, deletion.id]);
  }

  /** Deletes the runs `due` (a query of their ids) selects, and records runs.purged for them. */
  private async deleteRuns(tx: Transaction, due: string, parameters: unknown[]): Promise<PurgedBatch> {
    const manager = managerOf(this.dataSource, tx);
    const [rows]: [Array<{ id: string; event_count: string }>, number] = await manager.query(
      `WITH due AS (${due}) DELETE FROM runs r USING due WHERE r.id = due.id RETURNING r.id, r.event_count`,
      parameters,
    );
    const runIds = rows.map((row) => row.id);
    if (runIds.length > 0) {
      await recordEvent(manager, EventNames.RunsPurged, { run_ids: runIds } satisfies RunsPurgedEvent);
      this.outbox.kickAfterCommit(tx);
    }
    return { runIds, events: rows.reduce((sum, row) => sum + Number(row.event_count), 0) };
  }
}

/** The user's runs GET /v1/runs lists under these filters that finished (by `finishedBefore`, else by now). */
function deletable(manager: EntityManager, userId: string, agents: LiveAgent[], filters: DeleteRunsQuery, finishedBefore?: Date): SelectQueryBuilder<RunEntity> {
  return runsAcrossAgents(manager, userId, agents, filters)
    .andWhere('r.is_finished')
    .andWhere(finishedBefore ? 'r.finished_at <= :finishedBefore' : 'r.finished_at <= now()', { finishedBefore });
}

function toDeletion(row: DeletionRow): RunDeletion {
  return {
    userId: row.user_id,
    id: row.id,
    agents: row.agents,
    filters: row.filters,
    finishedBefore: row.finished_before,
    matched: Number(row.matched),
    deleted: Number(row.deleted),
    createdAt: row.created_at,
  };
}
