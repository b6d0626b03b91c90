import { MigrationInterface, QueryRunner } from 'typeorm';

/** Client keys move into their own namespace (`api:`), apart from the keys of schedule fires (`schedule:`). */
export class IdempotencyKeyNamespaces1764000000000 implements MigrationInterface {
  name = 'IdempotencyKeyNamespaces1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE run_idempotency_keys SET key = 'api:' || key WHERE key NOT LIKE 'schedule:%'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE run_idempotency_keys SET key = substr(key, 5) WHERE key LIKE 'api:%'`);
  }
}
