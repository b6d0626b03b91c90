import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * DELETE /v1/runs (docs/retention.md): a user's request to delete their finished runs matching the run
 * list's filters, kept until the purge has deleted them all, so that it survives restarts. One per user at
 * a time (the primary key); `id` tells one of a user's deletions from the next. `agents` are the live agents (and generations) the filters named when it was
 * accepted; `finished_before` its time: runs that finish later are not deleted.
 */
export class RunDeletions1764970000001 implements MigrationInterface {
  name = 'RunDeletions1764970000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE run_deletions (
        user_id uuid PRIMARY KEY,
        id uuid NOT NULL DEFAULT gen_random_uuid(), -- this deletion, not a later one of the user
        agents jsonb NOT NULL,
        filters jsonb NOT NULL,
        finished_before timestamptz NOT NULL,
        matched bigint NOT NULL,
        deleted bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE run_deletions`);
  }
}
