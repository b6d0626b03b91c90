// The run path reference's API process (bench/reference/run-path/): POST /v1/agents/{agent_id}/runs
// with verified keys kept in memory, one transaction per run (store.mjs), the 201 once it committed;
// and the relay that moves queued runs from the outbox onto the BullMQ execution queue.
//   node bench/reference/run-path/api.mjs <port> <database url> <redis url> <redis prefix>
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { RELAY_BATCH, acceptRun, relayQueued } from './store.mjs';
import { relayLoop } from './relay.mjs';

const require = createRequire(import.meta.url);
const Fastify = require('fastify');
const { Pool } = require('pg');
const { Queue } = require('bullmq');
const Redis = require('ioredis');

const [port, databaseUrl, redisUrl, prefix] = process.argv.slice(2);
const KEY_TTL_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// As runs-service's outbox relay: a job that fails (the database gone a moment) is tried again.
const JOB_OPTIONS = { attempts: 10, backoff: { type: 'exponential', delay: 1000 }, removeOnComplete: { age: 24 * 3600 }, removeOnFail: { age: 7 * 24 * 3600 } };
const pool = new Pool({ connectionString: databaseUrl, max: 10 });
const queue = new Queue('runs', { connection: new Redis(redisUrl, { maxRetriesPerRequest: null }), prefix });
/** key hash → { userId, until } */
const verified = new Map();

async function userOf(key) {
  const hash = createHash('sha256').update(key).digest('hex');
  const known = verified.get(hash);
  if (known && known.until > Date.now()) return known.userId;
  const { rows } = await pool.query('SELECT user_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]);
  if (rows.length === 0) return undefined;
  verified.set(hash, { userId: rows[0].user_id, until: Date.now() + KEY_TTL_MS });
  return rows[0].user_id;
}

const relay = relayLoop(
  () =>
    relayQueued(pool, (rows) =>
      queue.addBulk(rows.map((row) => ({ name: 'run', data: row.payload, opts: { ...JOB_OPTIONS, jobId: `outbox-${row.id}` } }))),
    ),
  { batch: RELAY_BATCH },
);

const problem = (reply, status, title) => reply.code(status).type('application/problem+json').send({ type: 'about:blank', title, status });
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.post('/v1/agents/:agentId/runs', async (request, reply) => {
  const key = request.headers['x-api-key'];
  const userId = typeof key === 'string' ? await userOf(key) : undefined;
  if (userId === undefined) return problem(reply, 401, 'Unauthorized');
  const { agentId } = request.params;
  const body = request.body ?? {};
  if (!UUID.test(agentId)) return problem(reply, 404, 'Not Found');
  if (typeof body !== 'object' || Array.isArray(body)) return problem(reply, 400, 'Bad Request');
  const runMode = body.run_mode ?? 'run';
  if (!['run', 'build'].includes(runMode) || !['string', 'undefined'].includes(typeof body.user_message)) return problem(reply, 400, 'Bad Request');
  const accepted = await acceptRun(pool, { userId, agentId, runMode, goal: body.user_message ?? null, skipDeployCheck: body.skip_deploy_check === true });
  if (accepted.refused) return problem(reply, accepted.refused, accepted.refused === 404 ? 'Not Found' : 'Conflict');
  relay.kick();
  return reply.code(201).send({ run: runBody(accepted.run) });
});

function runBody(run) {
  return {
    run_id: run.id,
    agent_id: run.agent_id,
    run_number: Number(run.run_number),
    started_at: run.started_at.toISOString(),
    last_event_at: run.last_event_at.toISOString(),
    event_count: 0,
    event_bytes: 0,
    step_count: 0,
    is_finished: false,
    is_paused: false,
    status: run.status,
    goal: run.goal,
    run_kind: run.run_kind,
    user_id: run.user_id,
  };
}

await app.listen({ port: Number(port), host: '127.0.0.1' });
process.on('SIGTERM', async () => {
  await app.close();
  relay.stop();
  await queue.close();
  await pool.end();
  process.exit(0);
});
