// Where each app's compiled entry point lands (nest build --all, tsc builder, monorepo mode).
const path = require('node:path');
const { existsSync } = require('node:fs');
const { execSync } = require('node:child_process');

const root = path.resolve(__dirname, '..');
const entry = (app) => path.join(root, 'dist', 'apps', app, 'apps', app, 'src', 'main.js');

const APPS = ['api-gateway', 'agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery'];
/** The agent runtime (docs/runtime.md): `npm start` runs it only when a model is configured (MODEL_NAME). */
const RUNTIME_APP = 'agent-runtime';
/** Apps that own a schema, in the order their migrations are applied. */
const SCHEMA_OWNERS = ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery'];
/** The V8 flags of the container image (the Dockerfile's NODE_OPTIONS), so `npm start` and the benchmarks run what is deployed. */
const NODE_FLAGS = ['--max-semi-space-size=8'];
const CLI_ENTRY = path.join(root, 'dist', 'apps', 'agents-service', 'apps', 'agents-service', 'src', 'cli', 'admin-cli.js');

/** Builds once when any entry point is missing (a fresh clone). */
/** The console's page, which `npm run build` writes with the apps (an older build has none). */
const CONSOLE_ENTRY = path.join(root, 'dist', 'console', 'index.html');

function ensureBuilt() {
  if ([...APPS.map(entry), entry(RUNTIME_APP), CLI_ENTRY, CONSOLE_ENTRY].every((file) => existsSync(file))) return;
  process.stderr.write('No build found; running npm run build first.\n');
  execSync('npm run build', { cwd: root, stdio: 'inherit' });
}

module.exports = { APPS, RUNTIME_APP, SCHEMA_OWNERS, CLI_ENTRY, NODE_FLAGS, entry, ensureBuilt, root };
