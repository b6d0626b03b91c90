import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Links between runs: a replay's origin (replay_of) and the instructions version it is pinned to (a replay
 * of the version its origin ran), and an event-triggered run's source run (source_run_id, until now only
 * inside trigger_data, filled here from it). Nullable columns add no table rewrite. The filters
 * `filter_replay_of` and `filter_source_run_id` read partial indexes: only linked runs are in them.
 */
export class RunReplays1764910000000 implements MigrationInterface {
  name = 'RunReplays1764910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE runs ADD COLUMN replay_of uuid, ADD COLUMN pinned_instructions_version_id bigint, ADD COLUMN source_run_id uuid`);
    // trigger_data is what the scheduler sent: a run id that is not a uuid links nothing rather than failing the migration.
    await queryRunner.query(
      `UPDATE runs SET source_run_id = (trigger_data->'source_run'->>'run_id')::uuid
        WHERE trigger_kind = 'event'
          AND trigger_data->'source_run'->>'run_id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'`,
    );
    const list = 'started_at DESC, run_number DESC';
    await queryRunner.query(`CREATE INDEX runs_replay_of_idx ON runs (replay_of, ${list}) WHERE replay_of IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX runs_source_run_idx ON runs (source_run_id, ${list}) WHERE source_run_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX runs_source_run_idx`);
    await queryRunner.query(`DROP INDEX runs_replay_of_idx`);
    await queryRunner.query(`ALTER TABLE runs DROP COLUMN replay_of, DROP COLUMN pinned_instructions_version_id, DROP COLUMN source_run_id`);
  }
}
