import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Input requests (docs/input-requests.md): the questions runs ask a person, their answers and the
 * runtime's state while the run waits without a worker. `runs.awaiting_input` takes a suspended run
 * out of admission's count of executing runs; a column with a constant default adds no table rewrite.
 */
export class InputRequests1764930000000 implements MigrationInterface {
  name = 'InputRequests1764930000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE runs ADD COLUMN awaiting_input boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`
      CREATE TABLE input_requests (
        id uuid PRIMARY KEY,
        run_id uuid NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        user_id uuid NOT NULL,
        agent_id uuid NOT NULL,
        input_id text NOT NULL,
        prompt text NOT NULL,
        schema jsonb NOT NULL,
        choices jsonb,
        notify jsonb NOT NULL,
        on_timeout jsonb NOT NULL,
        state text NOT NULL,
        time_left_ms bigint NOT NULL,
        status text NOT NULL,
        created_at timestamptz NOT NULL,
        pause_at timestamptz NOT NULL,
        paused boolean NOT NULL DEFAULT false,
        timeout_at timestamptz NOT NULL,
        answer text,
        answered_at timestamptz,
        answered_by jsonb,
        continued_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX input_requests_run_idx ON input_requests (run_id, created_at)`);
    await queryRunner.query(`CREATE INDEX input_requests_user_idx ON input_requests (user_id, status, created_at)`);
    await queryRunner.query(`CREATE INDEX input_requests_due_idx ON input_requests (timeout_at) WHERE status = 'pending'`);
    await queryRunner.query(`CREATE INDEX input_requests_pause_idx ON input_requests (pause_at) WHERE status = 'pending' AND NOT paused`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE input_requests`);
    await queryRunner.query(`ALTER TABLE runs DROP COLUMN awaiting_input`);
  }
}
