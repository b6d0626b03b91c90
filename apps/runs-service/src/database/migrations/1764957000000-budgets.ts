import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Spending budgets (docs/budgets.md): the limits of a user (agent_id null) or of one of their agents, and
 * the credits spent, one row per user, UTC day and agent, added to in the unit of work that records each
 * usage line. A day's row of one agent is the hottest a usage line touches; months and users are sums of
 * days (at most 31 rows per agent), read only where a budget exists.
 */
export class Budgets1764957000000 implements MigrationInterface {
  name = 'Budgets1764957000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE budgets (
         user_id uuid NOT NULL,
         agent_id uuid,
         daily_credits bigint,
         monthly_credits bigint,
         updated_at timestamptz NOT NULL DEFAULT now())`,
    );
    await queryRunner.query(`CREATE UNIQUE INDEX budgets_user_idx ON budgets (user_id) WHERE agent_id IS NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX budgets_agent_idx ON budgets (user_id, agent_id) WHERE agent_id IS NOT NULL`);
    // The reads look a user's rows up whatever their agent_id (the partial indexes above serve only the upserts).
    await queryRunner.query(`CREATE INDEX budgets_owner_idx ON budgets (user_id, agent_id)`);
    await queryRunner.query(
      `CREATE TABLE budget_spend (
         user_id uuid NOT NULL,
         day date NOT NULL,
         agent_id uuid NOT NULL,
         credit_millionths bigint NOT NULL,
         PRIMARY KEY (user_id, day, agent_id))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE budget_spend`);
    await queryRunner.query(`DROP TABLE budgets`);
  }
}
