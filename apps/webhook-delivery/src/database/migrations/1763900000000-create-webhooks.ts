import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateWebhooks1763900000000 implements MigrationInterface {
  name = 'CreateWebhooks1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        agent_id uuid NOT NULL,
        user_id uuid NOT NULL,
        url text NOT NULL,
        events text[] NOT NULL,
        status text NOT NULL DEFAULT 'active',
        secret_sealed text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX webhooks_agent_idx ON webhooks (agent_id, created_at)`);
    await queryRunner.query(`
      CREATE TABLE deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        source_event_id text NOT NULL,
        event text NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        finished_at timestamptz,
        UNIQUE (webhook_id, source_event_id)
      )`);
    await queryRunner.query(`CREATE INDEX deliveries_webhook_idx ON deliveries (webhook_id, created_at DESC)`);
    await queryRunner.query(`
      CREATE TABLE delivery_attempts (
        id bigserial PRIMARY KEY,
        delivery_id uuid NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
        attempt integer NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        status_code integer,
        error text,
        response_body text
      )`);
    await queryRunner.query(`CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, attempt)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['delivery_attempts', 'deliveries', 'webhooks']) await queryRunner.query(`DROP TABLE ${table}`);
  }
}
