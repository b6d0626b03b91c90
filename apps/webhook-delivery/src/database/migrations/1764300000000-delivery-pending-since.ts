import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When a delivery became pending: its creation, or the last redelivery asked for. An open circuit keeps
 * a delivery waiting for at most its retry schedule's span from then (docs/decisions.md, Webhooks).
 * Null for deliveries made before this version, which count from created_at; added without a stored
 * default and given one afterwards, so neither statement rewrites the table.
 */
export class DeliveryPendingSince1764300000000 implements MigrationInterface {
  name = 'DeliveryPendingSince1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deliveries ADD COLUMN pending_since timestamptz`);
    await queryRunner.query(`ALTER TABLE deliveries ALTER COLUMN pending_since SET DEFAULT now()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deliveries DROP COLUMN pending_since`);
  }
}
