// npm start: migrations first, then all five apps as separate processes with prefixed logs; Ctrl-C stops them all.
const { concurrently } = require('concurrently');
const { APPS, entry } = require('./apps');
const { migrateAll } = require('./migrate');

migrateAll();

const { result } = concurrently(
  APPS.map((app) => ({ name: app, command: `node "${entry(app)}"` })),
  { prefix: 'name', killOthersOn: ['failure'], killSignal: 'SIGTERM', handleInput: false },
);

result.then(
  () => process.exit(0),
  () => process.exit(1),
);
