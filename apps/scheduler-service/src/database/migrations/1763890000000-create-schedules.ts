import { createOutboxTable } from '@aas/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateSchedules1763890000000 implements MigrationInterface {
  name = 'CreateSchedules1763890000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE schedules (
        agent_id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        cron text NOT NULL,
        timezone text,
        overlap text NOT NULL DEFAULT 'skip',
        paused boolean NOT NULL DEFAULT false,
        auto_paused boolean NOT NULL DEFAULT false,
        consecutive_failures integer NOT NULL DEFAULT 0,
        next_run_at timestamptz,
        active_run_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX schedules_due_idx ON schedules (next_run_at) WHERE NOT paused`);
    await queryRunner.query(`CREATE INDEX schedules_user_idx ON schedules (user_id)`);
    await createOutboxTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE outbox`);
    await queryRunner.query(`DROP TABLE schedules`);
  }
}
