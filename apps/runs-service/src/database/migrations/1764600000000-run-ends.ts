import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's end recorded aside (execution/run-ends.ts): the change that will finish the run, kept here
 * while its effects on other services are applied, and written into the run (with its lifecycle
 * events) only once they are. `retry_at` is when a sweep may take it over: a lease while a process
 * works on it, the next try after a failure. Deleting a run deletes its pending end.
 */
export class RunEnds1764600000000 implements MigrationInterface {
  name = 'RunEnds1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE run_ends (
         run_id uuid PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
         change jsonb NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now(),
         retry_at timestamptz NOT NULL
       )`,
    );
    await queryRunner.query(`CREATE INDEX run_ends_retry_idx ON run_ends (retry_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE run_ends`);
  }
}
