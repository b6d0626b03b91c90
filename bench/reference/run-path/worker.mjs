// The run path reference's worker process (bench/reference/run-path/): a BullMQ worker that
// executes each queued run as the built-in runtime does with no step delay (event 0 `started`, one
// `step` per plan step or one "Run", `completed`), one transaction per event (store.mjs), each event
// published on the run's Redis channel once committed; and the relay that turns run.started and
// run.completed into webhook deliveries and looks up the event triggers they fire.
//   node bench/reference/run-path/worker.mjs <database url> <redis url> <redis prefix> <concurrency>
import { createRequire } from 'node:module';
import { RELAY_BATCH, acceptRun, recordNext, recordStart, relayLifecycle } from './store.mjs';
import { relayLoop } from './relay.mjs';

const require = createRequire(import.meta.url);
const { Pool } = require('pg');
const { Worker } = require('bullmq');
const Redis = require('ioredis');

const [databaseUrl, redisUrl, prefix, concurrency] = process.argv.slice(2);
const pool = new Pool({ connectionString: databaseUrl, max: 20 });
const publisher = new Redis(redisUrl);

const relay = relayLoop(
  async () => {
    const { taken, fired } = await relayLifecycle(pool);
    for (const { target_agent_id: agentId, payload } of fired) await acceptRun(pool, { userId: payload.user_id, agentId, skipDeployCheck: true });
    return taken;
  },
  { batch: RELAY_BATCH },
);

/** Commands on one connection keep their order, so a run's events reach its channel in order. */
function push(runId, { item, run }) {
  const message = JSON.stringify({ index: item.event_index, item, finished: run.is_finished });
  publisher.publish(`${prefix}:runs:events:${runId}`, message).catch((error) => process.stderr.write(`publish: ${error.message}\n`));
}

async function execute(runId) {
  const started = await recordStart(pool, runId);
  if (!started) {
    // Started before (its worker died mid-run): what the runtime did cannot be replayed, so it ends in error, as in runs-service.
    const failed = await recordNext(pool, runId, { failed: { error: 'execution was interrupted; not retried' } }, { status: 'error', finished: true, lifecycle: 'run.failed' });
    if (failed) push(runId, failed);
    return;
  }
  push(runId, started);
  relay.kick();
  const steps = started.run.plan_steps;
  const titles = steps.length > 0 ? steps.map((s, i) => (typeof s?.title === 'string' ? s.title : `Step ${i + 1}`)) : ['Run'];
  for (const [index, title] of titles.entries()) {
    const step = await recordNext(pool, runId, { step: { title, index } }, { status: 'in_progress', stepDelta: 1 });
    if (!step) return;
    push(runId, step);
  }
  const summary = `Completed ${titles.length} step(s)`;
  const end = await recordNext(pool, runId, { completed: { outcome: 'success', summary } }, { status: 'completed', finished: true, outcome: 'success', summary, lifecycle: 'run.completed' });
  if (!end) return;
  push(runId, end);
  relay.kick();
}

const worker = new Worker('runs', (job) => execute(job.data.run_id), {
  connection: new Redis(redisUrl, { maxRetriesPerRequest: null }),
  prefix,
  concurrency: Number(concurrency),
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.on('SIGTERM', async () => {
  await worker.close();
  relay.stop();
  publisher.disconnect();
  await pool.end();
  process.exit(0);
});
