import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Remembered totals for the run list filters that run_list_counts cannot sum
 * (filter_goal, filter_started_after/before): counting them reads every
 * matching run (20-40 ms of PostgreSQL for 25,000 runs), and a client paging
 * through a filtered list asks for the same total on every page.
 *
 * run_list_generations numbers each agent's runs' state: triggers bump it in
 * the same transaction as every insert, delete and change of a column a filter
 * tests, so equal generations mean the same
 * runs with the same statuses. run_list_totals holds a total with the
 * generation it was counted at; it is only used while the generation is still
 * the agent's, so it is never stale. It is UNLOGGED: no WAL, emptied by a crash,
 * which only costs a recount.
 *
 * The generation triggers sort before the run_list_counts ones (PostgreSQL
 * fires triggers of one event in name order), so every transaction that changes
 * an agent's runs locks its generation row first, then count rows: one order
 * for all of them, so they cannot deadlock.
 */
export class RunListTotals1763930000000 implements MigrationInterface {
  name = 'RunListTotals1763930000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // Writes wait until the generations exist with their triggers, so none is missed.
    await queryRunner.query('LOCK TABLE runs IN SHARE ROW EXCLUSIVE MODE');
    await queryRunner.query(`CREATE TABLE run_list_generations (agent_id uuid PRIMARY KEY, generation bigint NOT NULL)`);
    await queryRunner.query(`
      CREATE UNLOGGED TABLE run_list_totals (
        agent_id uuid NOT NULL,
        user_id uuid NOT NULL,
        filters text NOT NULL, -- runListFiltersKey: a digest of the filters
        generation bigint NOT NULL,
        total bigint NOT NULL,
        counted_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (agent_id, user_id, filters)
      )`);
    await queryRunner.query('CREATE INDEX run_list_totals_counted_at_idx ON run_list_totals (counted_at)');

    const bump = (agents: string) => `
          INSERT INTO run_list_generations AS g (agent_id, generation)
          SELECT agent_id, 1 FROM (${agents}) AS a ORDER BY agent_id
          ON CONFLICT (agent_id) DO UPDATE SET generation = g.generation + 1;`;
    await queryRunner.query(`
      CREATE FUNCTION run_list_generations_bump() RETURNS trigger LANGUAGE plpgsql
      SET search_path FROM CURRENT AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN ${bump('SELECT DISTINCT agent_id FROM new_runs')}
        ELSIF TG_OP = 'DELETE' THEN ${bump('SELECT DISTINCT agent_id FROM old_runs')}
        ELSIF TG_OP = 'UPDATE' THEN ${bump('SELECT OLD.agent_id UNION SELECT NEW.agent_id')}
        ELSE -- TRUNCATE
          UPDATE run_list_generations SET generation = generation + 1;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER run_list_bump_generation_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_runs
        FOR EACH STATEMENT EXECUTE FUNCTION run_list_generations_bump()`);
    await queryRunner.query(`
      CREATE TRIGGER run_list_bump_generation_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_runs
        FOR EACH STATEMENT EXECUTE FUNCTION run_list_generations_bump()`);
    // Every column a list filter tests (goal and started_at are set once, but a total must not depend on that);
    // the recorder's per-event updates do not bump.
    await queryRunner.query(`
      CREATE TRIGGER run_list_bump_generation_update AFTER UPDATE ON runs FOR EACH ROW
        WHEN ((OLD.agent_id, OLD.user_id, OLD.status, OLD.is_finished, OLD.run_mode, OLD.policy_type, lower(OLD.user_email),
               OLD.goal, OLD.started_at)
              IS DISTINCT FROM (NEW.agent_id, NEW.user_id, NEW.status, NEW.is_finished, NEW.run_mode, NEW.policy_type,
               lower(NEW.user_email), NEW.goal, NEW.started_at))
        EXECUTE FUNCTION run_list_generations_bump()`);
    await queryRunner.query(`
      CREATE TRIGGER run_list_bump_generation_truncate AFTER TRUNCATE ON runs
        FOR EACH STATEMENT EXECUTE FUNCTION run_list_generations_bump()`);
    await queryRunner.query('INSERT INTO run_list_generations (agent_id, generation) SELECT DISTINCT agent_id, 1 FROM runs');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const trigger of ['insert', 'delete', 'update', 'truncate']) {
      await queryRunner.query(`DROP TRIGGER run_list_bump_generation_${trigger} ON runs`);
    }
    await queryRunner.query('DROP FUNCTION run_list_generations_bump()');
    await queryRunner.query('DROP TABLE run_list_totals');
    await queryRunner.query('DROP TABLE run_list_generations');
  }
}
