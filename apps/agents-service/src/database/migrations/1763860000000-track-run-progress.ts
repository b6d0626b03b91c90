import { MigrationInterface, QueryRunner } from 'typeorm';

/** Remember which run snapshot an agent's summary reflects, so older ones arriving late are ignored. */
export class TrackRunProgress1763860000000 implements MigrationInterface {
  name = 'TrackRunProgress1763860000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE agents
        ADD COLUMN latest_run_number integer NOT NULL DEFAULT 0,
        ADD COLUMN latest_run_seq bigint NOT NULL DEFAULT -1,
        ADD COLUMN latest_build_run_number integer NOT NULL DEFAULT 0,
        ADD COLUMN latest_build_run_seq bigint NOT NULL DEFAULT -1`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE agents
        DROP COLUMN latest_run_number, DROP COLUMN latest_run_seq,
        DROP COLUMN latest_build_run_number, DROP COLUMN latest_build_run_seq`);
  }
}
