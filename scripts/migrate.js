// Applies every service's migrations to its own schema (creating the database when missing).
const { spawnSync } = require('node:child_process');
const { SCHEMA_OWNERS, entry, ensureBuilt } = require('./apps');

function migrateAll() {
  ensureBuilt();
  for (const app of SCHEMA_OWNERS) {
    const result = spawnSync(process.execPath, [entry(app), 'migrate'], { stdio: 'inherit' });
    if (result.status !== 0) {
      process.stderr.write(`${app}: migration failed (exit ${result.status ?? result.signal})\n`);
      process.exit(result.status ?? 1);
    }
  }
}

module.exports = { migrateAll };
if (require.main === module) migrateAll();
