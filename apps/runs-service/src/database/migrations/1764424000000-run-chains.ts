import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chains of triggered runs (acceptance/): a run started by an event trigger, or by an inbound call
 * this installation's own webhook made, names the run at the root of its chain, and `run_chains`
 * counts the runs each chain has started, in the transaction that accepts them, so the count holds
 * across replicas and a retried start (whose idempotency key is taken) is never counted twice. A
 * nullable column without a default adds no rewrite; `updated_at` serves the purge of idle chains.
 */
export class RunChains1764424000000 implements MigrationInterface {
  name = 'RunChains1764424000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE runs ADD COLUMN chain_root_id uuid`);
    await queryRunner.query(
      `CREATE TABLE run_chains (
         root_run_id uuid PRIMARY KEY,
         started_runs integer NOT NULL,
         updated_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    await queryRunner.query(`CREATE INDEX run_chains_updated_idx ON run_chains (updated_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE run_chains`);
    await queryRunner.query(`ALTER TABLE runs DROP COLUMN chain_root_id`);
  }
}
