import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The generation of the agent a schedule belongs to (AgentContext.generation): the schedule of a
 * deleted agent is never shown to, fired for, or counted against a new agent that takes its id,
 * and the old agent's cleanup deletes only its own. Null for schedules set before this version.
 */
export class ScheduleAgentGeneration1764200000000 implements MigrationInterface {
  name = 'ScheduleAgentGeneration1764200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE schedules ADD COLUMN agent_generation bigint`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE schedules DROP COLUMN agent_generation`);
  }
}
