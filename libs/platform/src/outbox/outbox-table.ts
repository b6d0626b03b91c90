import { QueryRunner } from 'typeorm';

/** The outbox table, for a service's migration (each service has one in its own schema). */
export async function createOutboxTable(queryRunner: QueryRunner): Promise<void> {
  await queryRunner.query(`
    CREATE TABLE outbox (
      id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      seq bigserial NOT NULL,
      event text NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`);
  await queryRunner.query(`CREATE INDEX outbox_order_idx ON outbox (created_at, seq)`);
}
