import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The fire time of a schedule's run, unique per agent: a fire or a backfill of a time that already
 * has a run answers that run even after the fire's idempotency key has been purged (24 hours).
 */
export class RunsScheduledFor1764000000001 implements MigrationInterface {
  name = 'RunsScheduledFor1764000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE runs ADD COLUMN scheduled_for timestamptz`);
    await queryRunner.query(`CREATE UNIQUE INDEX runs_agent_scheduled_for_key ON runs (agent_id, scheduled_for) WHERE scheduled_for IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX runs_agent_scheduled_for_key`);
    await queryRunner.query(`ALTER TABLE runs DROP COLUMN scheduled_for`);
  }
}
