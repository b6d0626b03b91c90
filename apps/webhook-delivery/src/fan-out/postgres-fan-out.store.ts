import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { FanOutStore, LifecycleEventDeliveries } from './fan-out.store';

/** Deliveries deleted per statement by runs.purged. */
export const DELETE_BATCH_SIZE = 500;

/** The fan-out on PostgreSQL: a delivery row is unique per webhook and source event, so an event processed twice makes none twice. */
@Injectable()
export class PostgresFanOutStore extends FanOutStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  /**
   * One round trip, by index: the new deliveries, and those of an earlier run of this event that are
   * still pending (the CTE's snapshot predates the insert, so the two never overlap).
   */
  async createDeliveries(event: LifecycleEventDeliveries): Promise<string[]> {
    const rows: { id: string }[] = await this.dataSource.query(
      `WITH created AS (
         INSERT INTO deliveries (webhook_id, source_event_id, event, body, chain_root_id, chain_depth, run_id)
         SELECT id, $2, $3, $4, $6, $7, $8 FROM webhooks WHERE agent_id = $1 AND status = 'active' AND $3 = ANY(events)
            AND ($5::bigint IS NULL OR agent_generation IS NULL OR agent_generation = $5)
         ON CONFLICT (webhook_id, source_event_id) DO NOTHING
         RETURNING id
       )
       SELECT id FROM created
       UNION ALL
       SELECT d.id FROM webhooks w JOIN deliveries d ON d.webhook_id = w.id AND d.source_event_id = $2
        WHERE w.agent_id = $1 AND d.status = 'pending'`,
      [event.agentId, event.sourceEventId, event.event, event.body, event.agentGeneration, event.chain.rootRunId, event.chain.depth, event.runId],
    );
    return rows.map((row) => row.id);
  }

  /** Each statement a short transaction (attempts go by their foreign key's cascade). */
  async deleteOfRuns(runIds: string[], batchSize = DELETE_BATCH_SIZE): Promise<number> {
    let deleted = 0;
    for (;;) {
      const [, count]: [unknown, number] = await this.dataSource.query(
        `DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE run_id = ANY($1::uuid[]) LIMIT $2)`,
        [runIds, batchSize],
      );
      deleted += count;
      if (count < batchSize) return deleted;
    }
  }
}
