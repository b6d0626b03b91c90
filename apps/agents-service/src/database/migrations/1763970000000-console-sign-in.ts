import { MigrationInterface, QueryRunner } from 'typeorm';

/** Console sign-in: a password per user, server-side sessions, and one-time first-run setup tokens (all stored hashed). */
export class ConsoleSignIn1763970000000 implements MigrationInterface {
  name = 'ConsoleSignIn1763970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users ADD COLUMN password_hash text`);
    await queryRunner.query(`
      CREATE TABLE console_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash char(64) NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX console_sessions_user_idx ON console_sessions (user_id, created_at)`);
    await queryRunner.query(`CREATE INDEX console_sessions_expiry_idx ON console_sessions (expires_at)`);
    await queryRunner.query(`
      CREATE TABLE console_setup_tokens (
        token_hash char(64) PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE console_setup_tokens`);
    await queryRunner.query(`DROP TABLE console_sessions`);
    await queryRunner.query(`ALTER TABLE users DROP COLUMN password_hash`);
  }
}
