import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The generation of the agent a webhook belongs to (AgentContext.generation): a deleted agent's
 * webhooks are never shown to, sent events of, or counted against a new agent that takes its id,
 * and the old agent's cleanup deletes only its own. Null for webhooks made before this version.
 */
export class WebhookAgentGeneration1764200000000 implements MigrationInterface {
  name = 'WebhookAgentGeneration1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks ADD COLUMN agent_generation bigint`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE webhooks DROP COLUMN agent_generation`);
  }
}
