import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { EventNames, RunsPurgedEvent } from '@aas/contracts';
import { OutboxRelay, Transaction, managerOf, recordEvent } from '@aas/platform';
import { DataSource } from 'typeorm';
import { PurgedBatch, PurgeScope, RetentionStore } from './retention.store';

/**
 * Rows are taken with SKIP LOCKED: a purge never waits for a run being changed (a delete through the API,
 * an agent's deletion) nor for another replica's purge. Events go by their foreign key's cascade; the
 * run_list_counts and run_list_generations triggers fire once per statement, as for any delete.
 */
const PURGE_BATCH = `
  WITH due AS (
    SELECT id FROM runs
     WHERE is_finished AND finished_at < now() - make_interval(days => $1)
       AND ($2::uuid[] IS NULL OR agent_id = ANY($2::uuid[])) AND agent_id <> ALL($3::uuid[])
     ORDER BY finished_at
     LIMIT $4
       FOR UPDATE SKIP LOCKED)
  DELETE FROM runs r USING due WHERE r.id = due.id
  RETURNING r.id, r.event_count`;

@Injectable()
export class PostgresRetentionStore extends RetentionStore {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly outbox: OutboxRelay,
  ) {
    super();
  }

  async purgeBatch(tx: Transaction, scope: PurgeScope, limit: number): Promise<PurgedBatch> {
    const manager = managerOf(this.dataSource, tx);
    const [rows]: [Array<{ id: string; event_count: string }>, number] = await manager.query(PURGE_BATCH, [
      scope.olderThanDays,
      scope.agentIds ?? null,
      scope.exceptAgentIds,
      limit,
    ]);
    const runIds = rows.map((row) => row.id);
    if (runIds.length > 0) {
      await recordEvent(manager, EventNames.RunsPurged, { run_ids: runIds } satisfies RunsPurgedEvent);
      this.outbox.kickAfterCommit(tx);
    }
    return { runIds, events: rows.reduce((sum, row) => sum + Number(row.event_count), 0) };
  }
}
