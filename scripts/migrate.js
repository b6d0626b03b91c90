// Applies every service's migrations to its own schema (creating the database when missing). The schemas are
// independent and each migration run holds its schema's advisory lock, so the four run at once.
const { spawn } = require('node:child_process');
const { SCHEMA_OWNERS, entry, ensureBuilt } = require('./apps');

/** Resolves when every schema is migrated; on a failure, says which and exits with its code. */
async function migrateAll() {
  ensureBuilt();
  const results = await Promise.all(SCHEMA_OWNERS.map((app) => migrate(app)));
  const failed = results.find((result) => result.code !== 0);
  if (failed) {
    process.stderr.write(`${failed.app}: migration failed (exit ${failed.code ?? failed.signal})\n`);
    process.exit(failed.code ?? 1);
  }
}

function migrate(app) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [entry(app), 'migrate'], { stdio: 'inherit' });
    child.on('error', () => resolve({ app, code: 1 }));
    child.on('exit', (code, signal) => resolve({ app, code, signal }));
  });
}

module.exports = { migrateAll };
if (require.main === module) migrateAll();
