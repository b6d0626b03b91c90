import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the sweep for lost deliveries reads (delivery-sweep.ts): pending deliveries in the order they
 * are due (next_attempt_at, or created_at before the first attempt). Partial, so it holds pending rows
 * only and a delivery leaves it when it finishes. Built CONCURRENTLY, outside a transaction, so
 * deliveries keep being written while it builds; a build cut short leaves an invalid index, which a
 * second run drops and builds again.
 */
export class PendingDeliveriesIndex1763950000000 implements MigrationInterface {
  name = 'PendingDeliveriesIndex1763950000000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS deliveries_pending_due_idx`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY deliveries_pending_due_idx ON deliveries ((coalesce(next_attempt_at, created_at)), id) WHERE status = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS deliveries_pending_due_idx`);
  }
}
