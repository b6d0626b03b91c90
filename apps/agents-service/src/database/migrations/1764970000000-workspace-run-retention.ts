import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A workspace's own retention of finished runs, in days (0: forever); null: the installation's
 * RUN_RETENTION_DAYS (docs/retention.md). A nullable column adds no table rewrite; the partial index
 * finds the few workspaces that set one, which is all the retention purge asks for.
 */
export class WorkspaceRunRetention1764970000000 implements MigrationInterface {
  name = 'WorkspaceRunRetention1764970000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE workspaces ADD COLUMN run_retention_days integer CHECK (run_retention_days >= 0)`);
    await queryRunner.query(`CREATE INDEX workspaces_run_retention_idx ON workspaces (id) WHERE run_retention_days IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE workspaces DROP COLUMN run_retention_days`);
  }
}
