import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox's request_id column (the request an event came from, passed on to its jobs): one
 * migration, registered by every service that has an outbox, each in its own schema.
 */
export class OutboxRequestId1763910000000 implements MigrationInterface {
  name = 'OutboxRequestId1763910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE outbox ADD COLUMN request_id text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE outbox DROP COLUMN request_id`);
  }
}
