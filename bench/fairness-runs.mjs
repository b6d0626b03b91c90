// npm run bench:fairness-runs — fair execution (docs/quotas-and-limits.md, "Executing runs"): user A
// queues BENCH_FLOOD_RUNS runs over 3 agents (3 of every 5 on the first, so that agent meets its own
// limit before A meets the user's), which a runtime the benchmark serves holds open for
// BENCH_HOLD_MS each; then user B starts BENCH_B_RUNS runs one at a time. Measures B's start latency
// (start request sent -> its run.started webhook received) and, sampled from PostgreSQL, the most runs
// A had executing (admitted, not finished) and the fewest A had waiting while B was measured. The
// apps run with their default limits (RUN_CONCURRENCY_PER_USER 10, RUN_CONCURRENCY_PER_AGENT 5,
// RUN_WORKER_CONCURRENCY 20), all as separate processes.
//   BENCH_FLOOD_RUNS (500), BENCH_B_RUNS (30), BENCH_HOLD_MS (30000), BENCH_B_PAUSE_MS (200)
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const { CLI_ENTRY } = require('../scripts/apps.js');
const { Client } = require('pg');

const FLOOD_RUNS = Number(process.env.BENCH_FLOOD_RUNS ?? 500);
const B_RUNS = Number(process.env.BENCH_B_RUNS ?? 30);
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 30_000);
const B_PAUSE_MS = Number(process.env.BENCH_B_PAUSE_MS ?? 200);
const FLOOD_AGENTS = 3;
/** Which agent each run of A goes to, in turn: the first agent takes 3 of every 5. */
const FLOOD_PATTERN = [0, 0, 0, 1, 2];
const FLOOD_CONCURRENCY = 20;
const TARGET_MS = 2000;
const KEY = `bench-${Date.now()}-key-0123456789`;
const RUNTIME_PORT = 3961;
const RECEIVER_PORT = 3962;

// The runtime: A's runs ("hold") stay open for HOLD_MS (or until the benchmark ends), B's complete at once.
const holds = new Set();
const runtime = createServer((req, res) => {
  // A version 1 runtime: no tool catalogue (GET /tools), only dispatches.
  if (req.method !== 'POST') return void res.writeHead(404).end();
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const dispatch = JSON.parse(body);
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write(`${JSON.stringify({ type: 'step', title: 'working' })}\n`);
    if (dispatch.user_message !== 'hold') return res.end(`${JSON.stringify({ type: 'completed', outcome: 'success' })}\n`);
    const timer = setTimeout(() => res.end(`${JSON.stringify({ type: 'completed', outcome: 'success' })}\n`), HOLD_MS);
    holds.add(timer);
    res.on('close', () => {
      clearTimeout(timer);
      holds.delete(timer);
    });
  });
});
const startedAt = new Map();
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    startedAt.set(JSON.parse(body).data?.run_id, performance.now());
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => runtime.listen(RUNTIME_PORT, '127.0.0.1', resolve));
await new Promise((resolve) => receiver.listen(RECEIVER_PORT, '127.0.0.1', resolve));

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery', 'api-gateway'],
  env: {
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_REQUESTS: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    AGENT_RUNTIME_URL: `http://127.0.0.1:${RUNTIME_PORT}/run`,
    // A's held runs are cut short when the benchmark stops, rather than drained for 20 s.
    SHUTDOWN_DRAIN_MS: '1000',
  },
});
const db = new Client({ connectionString: system.databaseUrl, options: '-c search_path=runs' });
let sampling = true;
try {
  const keyB = makeUser(system, `b-${Date.now()}@bench.test`);
  const agentsA = [];
  for (let i = 0; i < FLOOD_AGENTS; i++) agentsA.push((await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id);
  const agentB = (await api(system.url, keyB, 'POST', '/v1/agents', {})).body.agent.agent_id;
  const hook = await api(system.url, keyB, 'POST', `/v1/agents/${agentB}/webhooks`, {
    url: `http://127.0.0.1:${RECEIVER_PORT}/hook`,
    events: ['run.started'],
  });
  if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
  const userA = (await api(system.url, KEY, 'GET', '/v1/me')).body.user_id;
  await db.connect();

  // A's executing and waiting runs, sampled every 50 ms.
  const seen = { maxExecuting: 0, maxPerAgent: 0, minWaiting: Infinity, measuring: false };
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await db.query(
        `SELECT agent_id, count(*) FILTER (WHERE admitted_at IS NOT NULL)::int AS executing, count(*) FILTER (WHERE admitted_at IS NULL)::int AS waiting
           FROM runs WHERE user_id = $1 AND NOT is_finished GROUP BY agent_id`,
        [userA],
      );
      seen.maxExecuting = Math.max(seen.maxExecuting, rows.reduce((n, r) => n + r.executing, 0));
      seen.maxPerAgent = Math.max(seen.maxPerAgent, ...rows.map((r) => r.executing));
      if (seen.measuring) seen.minWaiting = Math.min(seen.minWaiting, rows.reduce((n, r) => n + r.waiting, 0));
      await sleep(50);
    }
  })();

  process.stderr.write(`  user A queues ${FLOOD_RUNS} runs over ${FLOOD_AGENTS} agents (3 of every 5 on the first)...\n`);
  let next = 0;
  await Promise.all(
    Array.from({ length: FLOOD_CONCURRENCY }, async () => {
      while (next < FLOOD_RUNS) {
        const agentId = agentsA[FLOOD_PATTERN[next++ % FLOOD_PATTERN.length]];
        const res = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { user_message: 'hold', skip_deploy_check: true });
        if (res.status !== 201) throw new Error(`A's start answered ${res.status}: ${JSON.stringify(res.body)}`);
      }
    }),
  );

  process.stderr.write(`  user B starts ${B_RUNS} runs one at a time...\n`);
  seen.measuring = true;
  const latencies = [];
  for (let n = 0; n < B_RUNS; n++) {
    const sent = performance.now();
    const res = await api(system.url, keyB, 'POST', `/v1/agents/${agentB}/runs`, { skip_deploy_check: true });
    if (res.status !== 201) throw new Error(`B's start answered ${res.status}: ${JSON.stringify(res.body)}`);
    const runId = res.body.run.run_id;
    for (let waited = 0; !startedAt.has(runId) && waited < 30_000; waited += 5) await sleep(5);
    latencies.push(startedAt.has(runId) ? startedAt.get(runId) - sent : Infinity);
    await sleep(B_PAUSE_MS);
  }
  seen.measuring = false;
  sampling = false;
  await sampler;

  const sorted = latencies.sort((a, b) => a - b);
  const max = sorted[sorted.length - 1];
  process.stdout.write(
    `\nbench:fairness-runs: A queued ${FLOOD_RUNS} runs (each held ${HOLD_MS} ms once it executes); B started ${B_RUNS}, ` +
      `${sorted.filter(Number.isFinite).length} reached run.started; B's run starts within 2 s: ${max < TARGET_MS ? 'yes' : 'NO'}\n`,
  );
  report('fairness-runs', [
    { metric: "B's run start -> run.started webhook p50", value: Math.round(percentile(sorted, 50)), unit: 'ms' },
    { metric: "B's run start -> run.started webhook p99", value: Math.round(percentile(sorted, 99)), unit: 'ms' },
    { metric: "B's run start -> run.started webhook max", value: Math.round(max), unit: 'ms', target: "< 2000 ms: B's run starts within 2 s" },
    { metric: "A's runs executing at once, max (limit 10)", value: seen.maxExecuting, unit: 'runs' },
    { metric: "A's runs of one agent executing at once, max (limit 5)", value: seen.maxPerAgent, unit: 'runs' },
    { metric: "A's runs waiting while B was measured, min", value: seen.minWaiting, unit: 'runs' },
  ]);
} finally {
  sampling = false;
  for (const timer of holds) clearTimeout(timer);
  await db.end().catch(() => undefined);
  await system.stop();
  runtime.closeAllConnections();
  runtime.close();
  receiver.close();
}

/** A second user with an API key, made by the admin command line (docs/operations.md). */
function makeUser(system, email) {
  const env = {
    ...process.env,
    DATABASE_URL: system.databaseUrl,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: system.redisPrefix,
    LOG_LEVEL: 'warn',
  };
  const result = spawnSync(process.execPath, [CLI_ENTRY, 'users', 'create', '--email', email], { env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cli users create failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()).api_key;
}
