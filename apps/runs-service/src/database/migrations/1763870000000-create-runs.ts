import { createOutboxTable } from '@aas/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateRuns1763870000000 implements MigrationInterface {
  name = 'CreateRuns1763870000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per agent: taking the next number locks it, so concurrent starts get distinct, gapless numbers.
    await queryRunner.query(`
      CREATE TABLE agent_run_counters (
        agent_id uuid PRIMARY KEY,
        last_run_number integer NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE runs (
        id uuid PRIMARY KEY,
        agent_id uuid NOT NULL,
        user_id uuid NOT NULL,
        user_email text,
        run_number integer NOT NULL,
        run_mode text NOT NULL,
        run_kind text NOT NULL,
        trigger_kind text NOT NULL,
        status text NOT NULL,
        outcome text,
        is_finished boolean NOT NULL DEFAULT false,
        is_paused boolean NOT NULL DEFAULT false,
        has_pending_input boolean NOT NULL DEFAULT false,
        goal text,
        policy_model text,
        policy_type text,
        schedule_agent_id text,
        webhook_subscription_id text,
        wrote_instructions boolean NOT NULL DEFAULT false,
        summary text,
        title text,
        event_count bigint NOT NULL DEFAULT 0,
        event_bytes bigint NOT NULL DEFAULT 0,
        step_count bigint NOT NULL DEFAULT 0,
        started_at timestamptz NOT NULL,
        last_event_at timestamptz NOT NULL,
        finished_at timestamptz,
        UNIQUE (agent_id, run_number)
      )`);
    await queryRunner.query(`CREATE INDEX runs_agent_started_idx ON runs (agent_id, started_at DESC, run_number DESC)`);
    await queryRunner.query(`CREATE INDEX runs_unfinished_idx ON runs (agent_id) WHERE NOT is_finished`);
    await queryRunner.query(`
      CREATE TABLE run_events (
        run_id uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        event_index bigint NOT NULL,
        recorded_at timestamptz NOT NULL,
        event jsonb NOT NULL,
        PRIMARY KEY (run_id, event_index)
      )`);
    await createOutboxTable(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['outbox', 'run_events', 'runs', 'agent_run_counters']) await queryRunner.query(`DROP TABLE ${table}`);
  }
}
