// npm start: migrations first, then all five apps (six with a model: the agent runtime) as child processes with prefixed logs (scripts/supervise.js).
// A SIGTERM or SIGINT to this process alone (systemd, supervisord, a CI runner) or Ctrl-C stops them all.
const { execFile } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { APPS, CLI_ENTRY, NODE_FLAGS, RUNTIME_APP, entry } = require('./apps');
const { migrateAll } = require('./migrate');
const { supervise } = require('./supervise');

/** Each back-end app's HEALTH_PORT is PORT plus this, so a second installation with another PORT does not collide. */
const HEALTH_PORT_OFFSETS = { 'agents-service': 1, 'runs-service': 2, 'scheduler-service': 3, 'webhook-delivery': 4 };
/** Beyond SHUTDOWN_DRAIN_MS, what an app may take to close its connections before it is killed. */
const CLOSE_GRACE_MS = 10_000;
/** The agent runtime listens on PORT plus this, on this machine only. */
const RUNTIME_PORT_OFFSET = 5;

const port = gatewayPort();

// The apps require WEBHOOK_SECRET_KEY. For a local `npm start` only, a fixed development key stands in;
// anything deployed sets its own (docker-compose.yml, the k8s Secret).
if (!process.env.WEBHOOK_SECRET_KEY) {
  process.env.WEBHOOK_SECRET_KEY = Buffer.from('development-only-webhook-key-32b').toString('base64');
  process.stderr.write('WEBHOOK_SECRET_KEY is not set: using the development key. Set your own outside development.\n');
}

// The gateway requires the public base of the URLs it hands out; here, where it listens on this machine.
if (!process.env.PUBLIC_BASE_URL) process.env.PUBLIC_BASE_URL = `http://localhost:${port}`;
if (process.env.HEALTH_PORT) {
  process.stderr.write(`HEALTH_PORT is not used by npm start: the back-end apps' health ports are PORT+1 to PORT+4 (${port + 1}-${port + 4}).\n`);
}

const withModel = useAgentRuntime();

migrateAll().then(startApps);

function startApps() {
  const apps = [...APPS, ...(withModel ? [RUNTIME_APP] : [])].map((app) => ({
    name: app,
    command: process.execPath,
    args: [...NODE_FLAGS, entry(app)],
    env: {
      ...process.env,
      ...(app in HEALTH_PORT_OFFSETS ? { HEALTH_PORT: String(port + HEALTH_PORT_OFFSETS[app]) } : {}),
      ...(app === RUNTIME_APP ? { PORT: String(port + RUNTIME_PORT_OFFSET) } : {}),
    },
  }));
  const healthPorts = Object.entries(HEALTH_PORT_OFFSETS).map(([app, offset]) => `${app} ${port + offset}`);
  process.stderr.write(`Gateway on port ${port}; health ports ${healthPorts.join(', ')}.\n`);
  if (withModel) process.stderr.write(`Agent runtime on port ${port + RUNTIME_PORT_OFFSET}, model ${process.env.MODEL_NAME}: runs are executed by the model.\n`);
  supervise(apps, { stopMs: drainMs() + CLOSE_GRACE_MS }).then((code) => process.exit(code));
  printSetupToken();
}

/**
 * With a model configured (MODEL_NAME), runs go to the agent runtime this script starts, unless
 * AGENT_RUNTIME_URL already names another runtime; without one, the built-in simulator stays.
 */
function useAgentRuntime() {
  if (!process.env.MODEL_NAME || process.env.AGENT_RUNTIME_URL) return false;
  if (port + RUNTIME_PORT_OFFSET > 65_535) {
    process.stderr.write(`With a model, npm start runs the agent runtime on PORT+${RUNTIME_PORT_OFFSET}: PORT must be at most ${65_535 - RUNTIME_PORT_OFFSET}.\n`);
    process.exit(1);
  }
  process.env.AGENT_RUNTIME_URL = `http://127.0.0.1:${port + RUNTIME_PORT_OFFSET}`;
  // Other users of this machine could reach the port: dispatches are signed, with a key made per start unless set.
  if (!process.env.AGENT_RUNTIME_SECRET) process.env.AGENT_RUNTIME_SECRET = randomBytes(24).toString('base64url');
  return true;
}

/** PORT (default 3000): a fixed port, with room for the four health ports above it. */
function gatewayPort() {
  const value = process.env.PORT ?? '3000';
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < 1 || parsed > 65_531) {
    process.stderr.write(`PORT must be an integer from 1 to 65531 for npm start (the health ports are PORT+1 to PORT+4); it is ${JSON.stringify(value)}.\n`);
    process.exit(1);
  }
  return parsed;
}

/** The apps' SHUTDOWN_DRAIN_MS (they validate it; a value they refuse stops them at start anyway). */
function drainMs() {
  const value = Number(process.env.SHUTDOWN_DRAIN_MS ?? 20_000);
  return Number.isFinite(value) && value >= 0 ? value : 20_000;
}

/**
 * While no user can sign in to the console, a fresh one-time setup token for its first-run page (the admin
 * command line's `setup-token`), printed while the apps start. Once a user has a password, nothing is printed.
 */
function printSetupToken() {
  execFile(process.execPath, [CLI_ENTRY, 'setup-token'], { encoding: 'utf8' }, (error, stdout) => {
    if (error) return;
    const { setup_token: token, expires_at: expiresAt } = JSON.parse(stdout);
    process.stderr.write(
      `\nFirst run: open http://localhost:${port}/console/ and create the first user with this setup token\n` +
        `(usable once, until ${expiresAt}; \`npm run cli -- setup-token\` makes a new one):\n\n    ${token}\n\n`,
    );
  });
}
