import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the sweep for lost deliveries reads (delivery-sweep.ts): pending deliveries in the order they
 * are due (next_attempt_at, or created_at before the first attempt). Partial, so it holds pending rows
 * only and a delivery leaves it when it finishes. Built in the migration's transaction, not
 * CONCURRENTLY: a concurrent build waits for every older snapshot, including a second migrator's
 * waiting for the migration lock this one holds, and the two would wait for each other. Writes to
 * deliveries wait while it builds (seconds per million pending deliveries).
 */
export class PendingDeliveriesIndex1763950000000 implements MigrationInterface {
  name = 'PendingDeliveriesIndex1763950000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX deliveries_pending_due_idx ON deliveries ((coalesce(next_attempt_at, created_at)), id) WHERE status = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX deliveries_pending_due_idx`);
  }
}
