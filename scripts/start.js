// npm start: migrations first, then all five apps as separate processes with prefixed logs; Ctrl-C stops them all.
const { concurrently } = require('concurrently');
const { spawnSync } = require('node:child_process');
const { APPS, CLI_ENTRY, NODE_FLAGS, entry } = require('./apps');
const { migrateAll } = require('./migrate');

// The apps require WEBHOOK_SECRET_KEY. For a local `npm start` only, a fixed development key stands in;
// anything deployed sets its own (docker-compose.yml, the k8s Secret).
if (!process.env.WEBHOOK_SECRET_KEY) {
  process.env.WEBHOOK_SECRET_KEY = Buffer.from('development-only-webhook-key-32b').toString('base64');
  process.stderr.write('WEBHOOK_SECRET_KEY is not set: using the development key. Set your own outside development.\n');
}

// The gateway requires the public base of the URLs it hands out; here, where it listens on this machine.
if (!process.env.PUBLIC_BASE_URL) process.env.PUBLIC_BASE_URL = `http://localhost:${process.env.PORT || '3000'}`;

migrateAll();
printSetupToken();

const { result } = concurrently(
  APPS.map((app) => ({ name: app, command: `node ${NODE_FLAGS.join(' ')} "${entry(app)}"` })),
  { prefix: 'name', killOthersOn: ['failure'], killSignal: 'SIGTERM', handleInput: false },
);

result.then(
  () => process.exit(0),
  () => process.exit(1),
);

/**
 * While no user can sign in to the console, a fresh one-time setup token for its first-run page
 * (the admin command line's `setup-token`). Once a user has a password, nothing is printed.
 */
function printSetupToken() {
  const result = spawnSync(process.execPath, [CLI_ENTRY, 'setup-token'], { encoding: 'utf8' });
  if (result.status !== 0) return;
  const { setup_token: token, expires_at: expiresAt } = JSON.parse(result.stdout);
  const port = process.env.PORT || '3000';
  process.stderr.write(
    `\nFirst run: open http://localhost:${port}/console/ and create the first user with this setup token\n` +
      `(usable once, until ${expiresAt}; \`npm run cli -- setup-token\` makes a new one):\n\n    ${token}\n\n`,
  );
}
