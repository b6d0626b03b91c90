import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The retention purge (retention/) takes the finished runs whose end is older than their retention, oldest
 * first: an index of finished runs by finished_at, so each batch reads only the runs it deletes. Partial (the
 * unfinished runs are never due), so recording a run's progress does not update it.
 */
export class RunRetention1764970000000 implements MigrationInterface {
  name = 'RunRetention1764970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX runs_finished_at_idx ON runs (finished_at) WHERE is_finished`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX runs_finished_at_idx`);
  }
}
