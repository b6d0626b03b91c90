import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Endpoint health and debuggable deliveries (docs/decisions.md, Webhooks): each webhook's run of
 * failed attempts, its last success and last error, and why it was disabled; each attempt's request
 * and response headers; test events; and a partial index of failed deliveries by webhook and time,
 * which "redeliver every failed delivery since" reads. Every column is added without a table rewrite
 * (nullable, or a constant default); the index is built in the migration's transaction, as
 * deliveries_pending_due_idx is (writes to deliveries wait while it builds).
 */
export class WebhookHealth1764400000000 implements MigrationInterface {
  name = 'WebhookHealth1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE webhooks
        ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0,
        ADD COLUMN last_success_at timestamptz,
        ADD COLUMN last_error text,
        ADD COLUMN last_error_at timestamptz,
        ADD COLUMN disabled_reason text`);
    await queryRunner.query(`ALTER TABLE deliveries ADD COLUMN test boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`ALTER TABLE delivery_attempts ADD COLUMN request_headers jsonb, ADD COLUMN response_headers jsonb`);
    await queryRunner.query(`CREATE INDEX deliveries_failed_idx ON deliveries (webhook_id, created_at, id) WHERE status = 'failed'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX deliveries_failed_idx`);
    await queryRunner.query(`ALTER TABLE delivery_attempts DROP COLUMN request_headers, DROP COLUMN response_headers`);
    await queryRunner.query(`ALTER TABLE deliveries DROP COLUMN test`);
    await queryRunner.query(`
      ALTER TABLE webhooks
        DROP COLUMN consecutive_failures, DROP COLUMN last_success_at, DROP COLUMN last_error,
        DROP COLUMN last_error_at, DROP COLUMN disabled_reason`);
  }
}
