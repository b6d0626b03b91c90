import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the run list (GET /v1/agents/{agent_id}/runs) reads, for agents with
 * large histories.
 *
 * Pages: runs_list_idx, (agent_id, user_id) and the list order (started_at
 * DESC, run_number DESC), replaces runs_agent_started_idx (which lacked
 * user_id); each equality filter but finished (most runs are) has the same
 * index with its column after user_id. A page is read in order and stops at
 * its last row. filter_goal, a
 * case-insensitive substring, has a trigram GIN index that holds agent_id too
 * (pg_trgm and btree_gin), so a search reads that agent's candidates only; it
 * is built without a pending list (fastupdate off), so searches do not slow
 * down between vacuums.
 *
 * Totals: counting 100,000 runs costs PostgreSQL 10-20 ms even from an index,
 * too much for a 50 ms p99 under a few concurrent requests, so run_list_counts
 * keeps the number of runs per agent, user and every column
 * an equality filter tests (status, is_finished, run_mode, policy_type,
 * lower(user_email)); a total under such filters is a sum of a few of its rows.
 * Triggers keep it in the same transaction as every change to runs, so it is
 * never stale: statement triggers for inserts and deletes (one upsert per
 * statement, however many rows), a row trigger for updates that change one of
 * those columns (the recorder's per-event updates do not fire it). Each
 * statement upserts its count rows in key order, so concurrent statements lock
 * them in the same order (runs-service changes runs in one statement per
 * transaction). Adding an equality filter on another column means adding that
 * column here.
 *
 * Both extensions are trusted: a database owner, or any user with CREATE on
 * the database, may create them; otherwise a superuser has to, once (docs/operations.md).
 * The migration locks runs against writes while it builds (seconds per
 * million runs).
 */
export class RunListIndexesAndCounts1763920000000 implements MigrationInterface {
  name = 'RunListIndexesAndCounts1763920000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const trgm = await ensureExtension(queryRunner, 'pg_trgm');
    await ensureExtension(queryRunner, 'btree_gin'); // agent_id's GIN operator class is its default one
    // Writes wait until the counts are filled and their triggers exist, so none is missed.
    await queryRunner.query('LOCK TABLE runs IN SHARE ROW EXCLUSIVE MODE');

    const list = 'started_at DESC, run_number DESC';
    await queryRunner.query(`CREATE INDEX runs_list_idx ON runs (agent_id, user_id, ${list})`);
    await queryRunner.query(`CREATE INDEX runs_list_status_idx ON runs (agent_id, user_id, status, ${list})`);
    await queryRunner.query(`CREATE INDEX runs_list_mode_idx ON runs (agent_id, user_id, run_mode, ${list})`);
    await queryRunner.query(`CREATE INDEX runs_list_policy_type_idx ON runs (agent_id, user_id, policy_type, ${list})`);
    await queryRunner.query(`CREATE INDEX runs_list_email_idx ON runs (agent_id, user_id, lower(user_email), ${list})`);
    await queryRunner.query(
      `CREATE INDEX runs_goal_trgm_idx ON runs USING gin (agent_id, goal ${trgm}.gin_trgm_ops) WITH (fastupdate = off)`,
    );
    await queryRunner.query('DROP INDEX runs_agent_started_idx');

    await queryRunner.query(`
      CREATE TABLE run_list_counts (
        agent_id uuid NOT NULL,
        user_id uuid NOT NULL,
        status text NOT NULL,
        is_finished boolean NOT NULL,
        run_mode text NOT NULL,
        policy_type text,
        user_email_lower text,
        runs bigint NOT NULL,
        CONSTRAINT run_list_counts_key UNIQUE NULLS NOT DISTINCT
          (agent_id, user_id, status, is_finished, run_mode, policy_type, user_email_lower)
      )`);
    // Counts that fall to 0 are deleted by the statement that emptied them, which holds their locks already
    // (so no lock is taken out of key order); the conditions on the leading key columns use the unique index.
    const emptied = (keys: string) => `
          DELETE FROM run_list_counts c USING (${keys}) AS k
           WHERE c.runs = 0 AND c.agent_id = k.agent_id AND c.user_id = k.user_id AND c.status = k.status
             AND c.is_finished = k.is_finished AND c.run_mode = k.run_mode
             AND c.policy_type IS NOT DISTINCT FROM k.policy_type AND c.user_email_lower IS NOT DISTINCT FROM k.user_email_lower`;
    await queryRunner.query(`
      CREATE FUNCTION run_list_counts_apply() RETURNS trigger LANGUAGE plpgsql
      -- run_list_counts is found whatever the search path of the session that writes to runs.
      SET search_path FROM CURRENT AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO run_list_counts AS c (agent_id, user_id, status, is_finished, run_mode, policy_type, user_email_lower, runs)
          SELECT agent_id, user_id, status, is_finished, run_mode, policy_type, lower(user_email), count(*) FROM new_runs
           GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
          ON CONFLICT ON CONSTRAINT run_list_counts_key DO UPDATE SET runs = c.runs + excluded.runs;
        ELSIF TG_OP = 'DELETE' THEN
          INSERT INTO run_list_counts AS c (agent_id, user_id, status, is_finished, run_mode, policy_type, user_email_lower, runs)
          SELECT agent_id, user_id, status, is_finished, run_mode, policy_type, lower(user_email), -count(*) FROM old_runs
           GROUP BY 1, 2, 3, 4, 5, 6, 7 ORDER BY 1, 2, 3, 4, 5, 6, 7
          ON CONFLICT ON CONSTRAINT run_list_counts_key DO UPDATE SET runs = c.runs + excluded.runs;
          ${emptied(`SELECT DISTINCT agent_id, user_id, status, is_finished, run_mode, policy_type,
                            lower(user_email) AS user_email_lower FROM old_runs`)};
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO run_list_counts AS c (agent_id, user_id, status, is_finished, run_mode, policy_type, user_email_lower, runs)
          SELECT * FROM (VALUES
            (OLD.agent_id, OLD.user_id, OLD.status, OLD.is_finished, OLD.run_mode, OLD.policy_type, lower(OLD.user_email), -1::bigint),
            (NEW.agent_id, NEW.user_id, NEW.status, NEW.is_finished, NEW.run_mode, NEW.policy_type, lower(NEW.user_email), 1::bigint)
          ) AS k ORDER BY 1, 2, 3, 4, 5, 6, 7
          ON CONFLICT ON CONSTRAINT run_list_counts_key DO UPDATE SET runs = c.runs + excluded.runs;
          ${emptied(`SELECT OLD.agent_id, OLD.user_id, OLD.status, OLD.is_finished, OLD.run_mode, OLD.policy_type,
                            lower(OLD.user_email) AS user_email_lower`)};
        ELSE -- TRUNCATE
          DELETE FROM run_list_counts;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER run_list_counts_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_runs
        FOR EACH STATEMENT EXECUTE FUNCTION run_list_counts_apply()`);
    await queryRunner.query(`
      CREATE TRIGGER run_list_counts_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_runs
        FOR EACH STATEMENT EXECUTE FUNCTION run_list_counts_apply()`);
    await queryRunner.query(`
      CREATE TRIGGER run_list_counts_update AFTER UPDATE ON runs FOR EACH ROW
        WHEN ((OLD.agent_id, OLD.user_id, OLD.status, OLD.is_finished, OLD.run_mode, OLD.policy_type, lower(OLD.user_email))
              IS DISTINCT FROM (NEW.agent_id, NEW.user_id, NEW.status, NEW.is_finished, NEW.run_mode, NEW.policy_type, lower(NEW.user_email)))
        EXECUTE FUNCTION run_list_counts_apply()`);
    await queryRunner.query(`
      CREATE TRIGGER run_list_counts_truncate AFTER TRUNCATE ON runs
        FOR EACH STATEMENT EXECUTE FUNCTION run_list_counts_apply()`);
    await queryRunner.query(`
      INSERT INTO run_list_counts (agent_id, user_id, status, is_finished, run_mode, policy_type, user_email_lower, runs)
      SELECT agent_id, user_id, status, is_finished, run_mode, policy_type, lower(user_email), count(*) FROM runs
       GROUP BY 1, 2, 3, 4, 5, 6, 7`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const trigger of ['insert', 'delete', 'update', 'truncate']) {
      await queryRunner.query(`DROP TRIGGER run_list_counts_${trigger} ON runs`);
    }
    await queryRunner.query('DROP FUNCTION run_list_counts_apply()');
    await queryRunner.query('DROP TABLE run_list_counts');
    await queryRunner.query(`CREATE INDEX runs_agent_started_idx ON runs (agent_id, started_at DESC, run_number DESC)`);
    for (const index of ['goal_trgm', 'list_email', 'list_policy_type', 'list_mode', 'list_status', 'list']) {
      await queryRunner.query(`DROP INDEX runs_${index}_idx`);
    }
    // The extensions stay: other schemas of the database may use them.
  }
}

const INSUFFICIENT_PRIVILEGE = '42501';

/**
 * Creates the extension when the database lacks it (in this schema, the first
 * on the search path) and returns the quoted schema that holds it, wherever
 * that is.
 */
async function ensureExtension(queryRunner: QueryRunner, extension: 'pg_trgm' | 'btree_gin'): Promise<string> {
  await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS ${extension}`).catch((error: { code?: string; message?: string }) => {
    if (error.code !== INSUFFICIENT_PRIVILEGE) throw error;
    throw new Error(
      `The runs schema needs the ${extension} extension, and this database user may not create it (${error.message}). ` +
        `Run CREATE EXTENSION ${extension} in this database as its owner or a superuser, then migrate again.`,
    );
  });
  const [{ schema }] = await queryRunner.query(
    `SELECT quote_ident(n.nspname) AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = $1`,
    [extension],
  );
  return schema;
}
