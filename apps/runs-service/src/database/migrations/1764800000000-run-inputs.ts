import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a run ran: the version of its agent's instructions it was dispatched with (null until it
 * starts, and for an agent without instructions). Its input is already kept (`goal`, `trigger_data`).
 * A nullable column adds no table rewrite.
 */
export class RunInputs1764800000000 implements MigrationInterface {
  name = 'RunInputs1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE runs ADD COLUMN instructions_version_id bigint`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE runs DROP COLUMN instructions_version_id`);
  }
}
