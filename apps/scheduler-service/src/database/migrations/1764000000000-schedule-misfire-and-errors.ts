import { MigrationInterface, QueryRunner } from 'typeorm';

/** Misfire policy (with its catch-up window) and the last error of each schedule. */
export class ScheduleMisfireAndErrors1764000000000 implements MigrationInterface {
  name = 'ScheduleMisfireAndErrors1764000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE schedules
        ADD COLUMN misfire text NOT NULL DEFAULT 'fire_once',
        ADD COLUMN catch_up_window_seconds integer,
        ADD COLUMN last_error text,
        ADD COLUMN last_error_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE schedules
        DROP COLUMN misfire,
        DROP COLUMN catch_up_window_seconds,
        DROP COLUMN last_error,
        DROP COLUMN last_error_at`);
  }
}
