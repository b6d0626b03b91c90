import { addOutboxRequestId, dropOutboxRequestId } from '@aas/platform';
import { MigrationInterface, QueryRunner } from 'typeorm';

export class OutboxRequestId1763910000000 implements MigrationInterface {
  name = 'OutboxRequestId1763910000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addOutboxRequestId(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await dropOutboxRequestId(queryRunner);
  }
}
