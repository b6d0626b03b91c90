import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LostDeliveryStore, SweepPosition } from './lost-delivery.store';

/** The sweep's read on PostgreSQL, by deliveries_pending_due_idx. */
@Injectable()
export class PostgresLostDeliveryStore extends LostDeliveryStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    super();
  }

  overdue(after: SweepPosition, marginMs: number, limit: number): Promise<SweepPosition[]> {
    return this.dataSource.query(
      `SELECT id, coalesce(next_attempt_at, created_at)::text AS due
         FROM deliveries
        WHERE status = 'pending'
          AND coalesce(next_attempt_at, created_at) < now() - make_interval(secs => $1)
          AND (coalesce(next_attempt_at, created_at), id) > ($2::timestamptz, $3::uuid)
        ORDER BY coalesce(next_attempt_at, created_at), id
        LIMIT $4`,
      [marginMs / 1000, after.due, after.id, limit],
    );
  }
}
