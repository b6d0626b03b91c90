import { MigrationInterface, QueryRunner } from 'typeorm';

/** Triggers: inbound webhook endpoints and event triggers of agents. */
export class CreateTriggers1764000000003 implements MigrationInterface {
  name = 'CreateTriggers1764000000003';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE triggers (
        id uuid PRIMARY KEY,
        agent_id uuid NOT NULL,
        agent_generation bigint NOT NULL,
        user_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('webhook', 'event')),
        name text NOT NULL DEFAULT '',
        status text NOT NULL DEFAULT 'active',
        message_template text,
        verification text,
        token_hash text,
        secret_sealed text,
        source_agent_id uuid,
        source_agent_generation bigint,
        events text[],
        last_triggered_at timestamptz,
        last_error text,
        last_error_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX triggers_agent_idx ON triggers (agent_id, created_at)`);
    // The event triggers a run's end may start, found by its agent.
    await queryRunner.query(`CREATE INDEX triggers_source_idx ON triggers (source_agent_id) WHERE kind = 'event'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE triggers`);
  }
}
