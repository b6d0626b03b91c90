import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last run whose end a schedule counted (ScheduleStore.recordRunEnd): the same end applied again
 * (runs-service asking once more after a lost answer, or its event after its request) counts once.
 * A nullable column without a default adds no rewrite.
 */
export class ScheduleLastEndedRun1764600000000 implements MigrationInterface {
  name = 'ScheduleLastEndedRun1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE schedules ADD COLUMN last_ended_run_id uuid`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE schedules DROP COLUMN last_ended_run_id`);
  }
}
