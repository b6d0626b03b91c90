import { MigrationInterface, QueryRunner } from 'typeorm';

/** Idempotency-Key on run start: one run per (user, key) within 24 hours. */
export class CreateIdempotencyKeys1763880000000 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1763880000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE run_idempotency_keys (
        user_id uuid NOT NULL,
        key text NOT NULL,
        agent_id uuid NOT NULL,
        run_id uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, key)
      )`);
    await queryRunner.query(`CREATE INDEX run_idempotency_keys_created_idx ON run_idempotency_keys (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE run_idempotency_keys`);
  }
}
