import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The chain of triggered runs a delivery's run belongs to: webhook-delivery signs it into the aas-chain
 * header of each attempt, so an inbound endpoint of this installation that the webhook points at
 * continues the chain rather than starting a new one. Nullable, without a default: no rewrite.
 */
export class DeliveryChains1764424000000 implements MigrationInterface {
  name = 'DeliveryChains1764424000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deliveries ADD COLUMN chain_root_id uuid, ADD COLUMN chain_depth integer`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE deliveries DROP COLUMN chain_root_id, DROP COLUMN chain_depth`);
  }
}
