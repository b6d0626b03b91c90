import { createOutboxTable } from '@aas/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

/** Workspaces, agents, instructions with their versions, and the outbox of events to publish. */
export class CreateCatalogue1763850000000 implements MigrationInterface {
  name = 'CreateCatalogue1763850000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name text NOT NULL,
        icon_config text,
        position integer NOT NULL,
        is_default boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX workspaces_one_default_per_user ON workspaces (user_id) WHERE is_default`);
    await queryRunner.query(`CREATE INDEX workspaces_user_position_idx ON workspaces (user_id, position, created_at)`);
    await queryRunner.query(`
      CREATE TABLE agents (
        id uuid PRIMARY KEY,
        seq bigserial NOT NULL UNIQUE,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id),
        owner_user_id uuid,
        is_subagent boolean NOT NULL DEFAULT false,
        derived_from_agent_id uuid,
        unread boolean NOT NULL DEFAULT false,
        name text,
        name_explanation text,
        icon_config text,
        policy_type text,
        active_build_run_id text,
        latest_build_run_id text,
        latest_instruction_build_run_id text,
        latest_run_id text NOT NULL DEFAULT '',
        latest_run_status text,
        latest_run_is_finished boolean,
        latest_run_has_pending_input boolean,
        has_runs boolean NOT NULL DEFAULT false,
        has_instruction_build boolean NOT NULL DEFAULT false,
        last_activity_at timestamptz,
        last_chat_message text,
        deployment_state text NOT NULL DEFAULT 'not_deployed',
        deployed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX agents_user_seq_idx ON agents (user_id, seq)`);
    await queryRunner.query(`CREATE INDEX agents_workspace_idx ON agents (workspace_id, seq)`);
    await queryRunner.query(`
      CREATE TABLE instruction_versions (
        id bigserial PRIMARY KEY,
        agent_id uuid NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
        content text NOT NULL,
        source_type text NOT NULL,
        source_id text NOT NULL DEFAULT '',
        content_hash char(64) NOT NULL,
        plan_steps jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX instruction_versions_agent_idx ON instruction_versions (agent_id, id DESC)`);
    await queryRunner.query(`
      CREATE TABLE instructions (
        agent_id uuid PRIMARY KEY REFERENCES agents(id) ON DELETE CASCADE,
        version_id bigint NOT NULL REFERENCES instruction_versions(id),
        content text NOT NULL,
        source_type text NOT NULL,
        source_id text NOT NULL DEFAULT '',
        content_hash char(64) NOT NULL,
        plan_steps jsonb,
        updated_at timestamptz NOT NULL
      )`);
    await createOutboxTable(queryRunner);
    // Users made before workspaces existed get their default workspace here.
    await queryRunner.query(
      `INSERT INTO workspaces (user_id, name, position, is_default) SELECT id, 'Default', 0, true FROM users`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['outbox', 'instructions', 'instruction_versions', 'agents', 'workspaces']) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
