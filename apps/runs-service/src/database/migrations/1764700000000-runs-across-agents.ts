import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /v1/runs reads a user's runs across agents newest first: one index in the list's order, so a page
 * is an index range scan whatever the number of agents.
 */
export class RunsAcrossAgents1764700000000 implements MigrationInterface {
  name = 'RunsAcrossAgents1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX runs_user_started_idx ON runs (user_id, started_at DESC, run_number DESC, id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX runs_user_started_idx`);
  }
}
