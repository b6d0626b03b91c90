import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent generations (docs/decisions.md, "Deleting an agent"): each run records the generation of its
 * agent, and `agent_generations` holds, per agent id, the generation whose runs this schema holds
 * (and whether that agent was deleted), so runs of a deleted agent are never shown to, counted for,
 * or numbered with a new agent that takes its id, and the old agent's cleanup never touches the new
 * one's. Both are cheap: a nullable column (no rewrite) and an empty table.
 */
export class AgentGenerations1764200000000 implements MigrationInterface {
  name = 'AgentGenerations1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE runs ADD COLUMN agent_generation bigint`);
    await queryRunner.query(`
      CREATE TABLE agent_generations (
        agent_id uuid PRIMARY KEY,
        user_id uuid NOT NULL,
        generation bigint NOT NULL,
        deleted_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX agent_generations_deleted_idx ON agent_generations (deleted_at) WHERE deleted_at IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE agent_generations`);
    await queryRunner.query(`ALTER TABLE runs DROP COLUMN agent_generation`);
  }
}
