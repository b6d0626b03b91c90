import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk actions (docs/bulk-actions.md): the action with its counts, and the runs it resolved when it was
 * created, each with its result once reached (null: not yet). `chunk` numbers the action's chunk jobs,
 * so a repeated or stale job finds it moved on. The idempotency key is the caller's, per user.
 */
export class BulkActions1764960000000 implements MigrationInterface {
  name = 'BulkActions1764960000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE bulk_actions (
         id uuid PRIMARY KEY,
         user_id uuid NOT NULL,
         action text NOT NULL CHECK (action IN ('cancel', 'replay')),
         filter jsonb,
         instructions text,
         idempotency_key text,
         status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'aborted', 'failed')),
         matched integer NOT NULL DEFAULT 0,
         done integer NOT NULL DEFAULT 0,
         failed integer NOT NULL DEFAULT 0,
         skipped integer NOT NULL DEFAULT 0,
         chunk integer NOT NULL DEFAULT 1,
         created_at timestamptz NOT NULL DEFAULT now(),
         started_at timestamptz,
         finished_at timestamptz
       )`,
    );
    await queryRunner.query(`CREATE INDEX bulk_actions_user_idx ON bulk_actions (user_id, created_at DESC, id DESC)`);
    await queryRunner.query(`CREATE INDEX bulk_actions_active_idx ON bulk_actions (user_id) WHERE status IN ('queued', 'running')`);
    await queryRunner.query(`CREATE UNIQUE INDEX bulk_actions_idempotency_idx ON bulk_actions (user_id, idempotency_key) WHERE idempotency_key IS NOT NULL`);
    await queryRunner.query(
      `CREATE TABLE bulk_action_runs (
         bulk_action_id uuid NOT NULL REFERENCES bulk_actions (id) ON DELETE CASCADE,
         position integer NOT NULL,
         run_id uuid NOT NULL,
         agent_id uuid NOT NULL,
         result text CHECK (result IN ('done', 'failed', 'skipped')),
         detail text,
         result_run_id uuid,
         finished_at timestamptz,
         PRIMARY KEY (bulk_action_id, position)
       )`,
    );
    await queryRunner.query(`CREATE INDEX bulk_action_runs_pending_idx ON bulk_action_runs (bulk_action_id, position) WHERE result IS NULL`);
    await queryRunner.query(`CREATE INDEX bulk_action_runs_run_idx ON bulk_action_runs (run_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE bulk_action_runs`);
    await queryRunner.query(`DROP TABLE bulk_actions`);
  }
}
