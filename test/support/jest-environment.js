// jest's node environment, plus a lock that lets test files run two at a time while the files
// marked `@run-alone` (in their first comment block) run with no other file beside them.
const { Client } = require('pg');
const { TestEnvironment } = require('jest-environment-node');

/**
 * A readers-writer lock in PostgreSQL (advisory, one key per jest run): every file holds it shared,
 * a `@run-alone` file exclusively. PostgreSQL queues a shared request behind a waiting exclusive
 * one, so a file that must run alone waits only for the files already running.
 */
class LockedNodeEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.runAlone = 'run-alone' in context.docblockPragmas;
    this.lockName = process.env.AAS_TEST_RUN_LOCK;
  }

  async setup() {
    await super.setup();
    if (!this.lockName) return;
    this.lockClient = new Client({ connectionString: process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
    // A lost connection only loses the lock: the file's own tests say what else broke.
    this.lockClient.on('error', () => undefined);
    await this.lockClient.connect();
    await this.lockClient.query(`SELECT ${this.runAlone ? 'pg_advisory_lock' : 'pg_advisory_lock_shared'}(hashtext($1))`, [this.lockName]);
  }

  async teardown() {
    // Closing the session releases its lock.
    await this.lockClient?.end().catch(() => undefined);
    await super.teardown();
  }
}

module.exports = LockedNodeEnvironment;
