import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Console sign-in hardening (issue #24): a session's last use (for the idle timeout), the session
 * that made an API key (so a password reset can list and revoke what a stolen session made), and
 * when a password was last reset (the keys listed are those made since).
 */
export class HardenConsoleSignIn1764410000000 implements MigrationInterface {
  name = 'HardenConsoleSignIn1764410000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE console_sessions ADD COLUMN last_seen_at timestamptz NOT NULL DEFAULT now()`);
    // No foreign key: sessions are deleted when they end, the key's record of its maker stays.
    await queryRunner.query(`ALTER TABLE api_keys ADD COLUMN created_by_session_id uuid`);
    await queryRunner.query(`CREATE INDEX api_keys_session_made_idx ON api_keys (user_id, created_at) WHERE created_by_session_id IS NOT NULL AND revoked_at IS NULL`);
    await queryRunner.query(`ALTER TABLE users ADD COLUMN password_changed_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE users DROP COLUMN password_changed_at`);
    await queryRunner.query(`DROP INDEX api_keys_session_made_idx`);
    await queryRunner.query(`ALTER TABLE api_keys DROP COLUMN created_by_session_id`);
    await queryRunner.query(`ALTER TABLE console_sessions DROP COLUMN last_seen_at`);
  }
}
