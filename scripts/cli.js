// npm run cli -- <command>: the admin command line (docs/operations.md), built on first use.
const { spawnSync } = require('node:child_process');
const { CLI_ENTRY, ensureBuilt } = require('./apps');

ensureBuilt();
const result = spawnSync(process.execPath, [CLI_ENTRY, ...process.argv.slice(2)], { stdio: 'inherit' });
process.exit(result.status ?? 1);
