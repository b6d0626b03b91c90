import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The run a delivery is about, so that deleting finished runs (runs.purged: retention and deletes by filter,
 * docs/retention.md) reaches their deliveries and attempts. Deliveries made before it get theirs from their
 * body (webhookBody's data.run_id); test events have none. A partial index: test events are left out.
 */
export class DeliveryRuns1764970000000 implements MigrationInterface {
  name = 'DeliveryRuns1764970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deliveries ADD COLUMN run_id uuid`);
    await queryRunner.query(`UPDATE deliveries SET run_id = (body::jsonb -> 'data' ->> 'run_id')::uuid WHERE NOT test`);
    await queryRunner.query(`CREATE INDEX deliveries_run_idx ON deliveries (run_id) WHERE run_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deliveries DROP COLUMN run_id`);
  }
}
