import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Fair execution (admission/): an accepted run waits in `runs` until its user and agent are under
 * their limits of executing runs, and `admitted_at` says when it was admitted (queued for a worker).
 * A run is executing from then until it is finished.
 *
 * The column's default, now(), admits every run that exists (they were queued already) and every
 * run a runs-service of the version before inserts during a rolling update (it queues its runs
 * itself); this version always writes the column. A constant default adds no rewrite.
 * Both indexes hold only unfinished runs, so they stay small however long the history; building
 * them reads the table once.
 */
export class RunAdmission1764300000000 implements MigrationInterface {
  name = 'RunAdmission1764300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE runs ADD COLUMN admitted_at timestamptz DEFAULT now()`);
    // Waiting runs per user and agent, oldest first; its leading columns also list the users and agents that have some.
    await queryRunner.query(
      `CREATE INDEX runs_waiting_idx ON runs (user_id, agent_id, started_at, run_number) WHERE admitted_at IS NULL AND NOT is_finished`,
    );
    await queryRunner.query(`CREATE INDEX runs_executing_idx ON runs (user_id, agent_id) WHERE admitted_at IS NOT NULL AND NOT is_finished`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX runs_executing_idx`);
    await queryRunner.query(`DROP INDEX runs_waiting_idx`);
    await queryRunner.query(`ALTER TABLE runs DROP COLUMN admitted_at`);
  }
}
