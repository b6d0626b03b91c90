import { MigrationInterface, QueryRunner } from 'typeorm';

/** Runs started by triggers: which trigger, how deep in a chain of event triggers, and what it received. */
export class RunTriggers1764000000002 implements MigrationInterface {
  name = 'RunTriggers1764000000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE runs
        ADD COLUMN trigger_id uuid,
        ADD COLUMN trigger_depth integer NOT NULL DEFAULT 0,
        ADD COLUMN trigger_data jsonb`);
    // filter_trigger_kind, in list order (as the other filters' indexes).
    await queryRunner.query(`CREATE INDEX runs_agent_trigger_kind_idx ON runs (agent_id, trigger_kind, started_at DESC, run_number DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX runs_agent_trigger_kind_idx`);
    await queryRunner.query(`ALTER TABLE runs DROP COLUMN trigger_id, DROP COLUMN trigger_depth, DROP COLUMN trigger_data`);
  }
}
