// npm start: migrations first, then all five apps as separate processes with prefixed logs; Ctrl-C stops them all.
const { concurrently } = require('concurrently');
const { APPS, entry } = require('./apps');
const { migrateAll } = require('./migrate');

// The apps require WEBHOOK_SECRET_KEY. For a local `npm start` only, a fixed development key stands in;
// anything deployed sets its own (docker-compose.yml, the k8s Secret).
if (!process.env.WEBHOOK_SECRET_KEY) {
  process.env.WEBHOOK_SECRET_KEY = Buffer.from('development-only-webhook-key-32b').toString('base64');
  process.stderr.write('WEBHOOK_SECRET_KEY is not set: using the development key. Set your own outside development.\n');
}

migrateAll();

const { result } = concurrently(
  APPS.map((app) => ({ name: app, command: `node "${entry(app)}"` })),
  { prefix: 'name', killOthersOn: ['failure'], killSignal: 'SIGTERM', handleInput: false },
);

result.then(
  () => process.exit(0),
  () => process.exit(1),
);
