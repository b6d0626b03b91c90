import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Keys deleted per statement: each statement is a short transaction that locks few rows. */
export const PURGE_BATCH_SIZE = 10_000;

/**
 * Deletes idempotency keys older than 24 hours, the API's and the schedules'
 * alike. The API promises a key's run for 24 hours. A schedule key
 * (`schedule:<agent>:<fire ms>`) only stops a fire delivered again from making a
 * second run, and a fire's job is retried for minutes (10 attempts, backoff from
 * 1 s doubling), not a day. Rows are taken with SKIP LOCKED: a purge never waits
 * for a start that holds a key, nor for another replica's purge.
 */
@Injectable()
export class IdempotencyKeyPurge {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Deletes in batches until one comes back short or `stop` says so (asked between batches); returns how many. */
  async purgeExpired(stop: () => boolean = () => false, batchSize = PURGE_BATCH_SIZE): Promise<number> {
    let purged = 0;
    for (;;) {
      const [, deleted]: [unknown, number] = await this.dataSource.query(
        `DELETE FROM run_idempotency_keys
          WHERE (user_id, key) IN (
            SELECT user_id, key FROM run_idempotency_keys
             WHERE created_at < now() - interval '24 hours'
             LIMIT $1
               FOR UPDATE SKIP LOCKED)`,
        [batchSize],
      );
      purged += deleted;
      if (deleted < batchSize || stop()) return purged;
    }
  }
}
