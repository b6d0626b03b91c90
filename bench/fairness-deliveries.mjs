// npm run bench:fairness-deliveries — does a user whose webhook endpoints all hang slow down another
// user's deliveries? All apps as separate processes, one webhook-delivery process, every setting at its
// default (WEBHOOK_TIMEOUT_MS 15 s, WEBHOOK_WORKER_CONCURRENCY 100, 4 in flight per webhook, 25 per user,
// a circuit opening after 5 failures in a row for 60 s).
//   User B: one agent, one webhook (run.started) on a receiver that answers at once; B starts
//   BENCH_RATE runs per second. B's latency: the run start sent -> its run.started delivery received.
//   User A: one agent with 20 webhooks (every lifecycle event) on a receiver that never answers; A starts
//   BENCH_A_RATE runs per second, each making 2 deliveries per webhook (run.started, run.completed),
//   each of which would hold a worker slot for the whole timeout.
// Phase 1: B alone for BENCH_SECONDS (default 30). Phase 2, for context: A's load starts with A's
// receiver answering at once, BENCH_SECONDS: what A's runs and deliveries cost everyone when nothing
// hangs. Phase 3: A's receiver stops answering, and B is measured for BENCH_HANG_SECONDS (default 90:
// A's circuits open within about a minute, and the phase covers the minute before as well as the
// cool-downs after). Printed: B's p50/p99 in each phase and the ratio of hanging to idle; what A had in
// flight at its receiver (most per webhook, most in all); A's deliveries deferred and circuits opened
// (webhook-delivery's /metrics); the webhook-delivery process's CPU.
//   BENCH_FAIRNESS=off: the same with the limits and the circuit breaker turned off (what they prevent).
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuUsed, processCpu } from './support/cpu.mjs';
import { percentile, report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const { CLI_ENTRY } = require('../scripts/apps.js');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const HANG_SECONDS = Number(process.env.BENCH_HANG_SECONDS ?? 90);
const RATE = Number(process.env.BENCH_RATE ?? 5);
const A_RATE = Number(process.env.BENCH_A_RATE ?? 5);
const FAIRNESS = process.env.BENCH_FAIRNESS !== 'off';
const A_WEBHOOKS = 20;
const KEY = `bench-${Date.now()}-key-0123456789`;
const GATEWAY_PORT = 3900;
const APPS = ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery', 'api-gateway'];
const OFF = {
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '0',
  WEBHOOK_MAX_IN_FLIGHT_PER_USER: '0',
  WEBHOOK_CIRCUIT_FAILURE_THRESHOLD: '0',
};

/** B's receiver: when each run's run.started arrived (performance.now()). */
const bReceived = new Map();
const receiverB = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    bReceived.set(JSON.parse(body).data?.run_id, performance.now());
    res.writeHead(204).end();
  });
});

/** A's receiver answers at once, then (hanging) never; it counts what is open, per webhook and in all, until the sender hangs up. */
let aHangs = false;
const aOpen = new Map();
const aMostOpen = new Map();
let aOpenAll = 0;
let aMostOpenAll = 0;
let aRequests = 0;
const receiverA = createServer((req, res) => {
  if (!aHangs) return req.resume().on('end', () => res.writeHead(204).end());
  const path = req.url;
  aRequests += 1;
  aOpen.set(path, (aOpen.get(path) ?? 0) + 1);
  aMostOpen.set(path, Math.max(aMostOpen.get(path) ?? 0, aOpen.get(path)));
  aMostOpenAll = Math.max(aMostOpenAll, (aOpenAll += 1));
  req.resume();
  res.on('close', () => {
    aOpen.set(path, aOpen.get(path) - 1);
    aOpenAll -= 1;
  });
});
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
const [portA, portB] = [await listen(receiverA), await listen(receiverB)];

const system = await startSystem({
  apps: APPS,
  gatewayPort: GATEWAY_PORT,
  env: {
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_REQUESTS: '0',
    BUILTIN_RUNTIME_STEP_MS: '0',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...(FAIRNESS ? {} : OFF),
  },
});
const workerMetrics = `http://127.0.0.1:${GATEWAY_PORT + 1 + APPS.indexOf('webhook-delivery')}/metrics`;

/** A second user, made with the admin command line (as an operator would), and its key. */
function createUser(email) {
  const result = spawnSync(process.execPath, [CLI_ENTRY, 'users', 'create', '--email', email], {
    env: { ...process.env, DATABASE_URL: system.databaseUrl, REDIS_PREFIX: system.redisPrefix, LOG_LEVEL: 'error' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`users create failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop()).api_key;
}

async function must(key, method, path, body, status) {
  const res = await api(system.url, key, method, path, body);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Sums of webhook-delivery's counters whose name (and labels) start as given. */
async function counters() {
  const text = await (await fetch(workerMetrics)).text();
  const sum = (prefix) =>
    text
      .split('\n')
      .filter((line) => line.startsWith(prefix))
      .reduce((total, line) => total + Number(line.split(' ').pop()), 0);
  return {
    deferred: sum('aas_webhook_delivery_deferrals_total'),
    deferredByCircuit: sum('aas_webhook_delivery_deferrals_total{reason="circuit_open"') + sum('aas_webhook_delivery_deferrals_total{reason="probe_in_flight"'),
    opened: sum('aas_webhook_circuits_opened_total'),
    attempts: sum('aas_webhook_delivery_attempts_total'),
  };
}

/** B starts RATE runs a second for `seconds`; answers B's latencies (ms), sorted, and how many arrived. */
async function measureB(keyB, agentB, seconds, label) {
  const sentAt = new Map();
  const t0 = performance.now();
  const starts = [];
  const total = Math.round(seconds * RATE);
  for (let n = 0; n < total; n++) {
    await sleep(Math.max(0, t0 + (n * 1000) / RATE - performance.now()));
    const sent = performance.now();
    starts.push(must(keyB, 'POST', `/v1/agents/${agentB}/runs`, { skip_deploy_check: true }, 201).then((b) => sentAt.set(b.run.run_id, sent)));
    if (n % RATE === 0) process.stderr.write(`\r  ${label}: ${n}/${total} of B's runs started, ${[...sentAt.keys()].filter((id) => bReceived.has(id)).length} delivered   `);
  }
  await Promise.all(starts);
  for (let waited = 0; [...sentAt.keys()].some((id) => !bReceived.has(id)) && waited < 60_000; waited += 200) await sleep(200);
  process.stderr.write('\n');
  const latencies = [...sentAt].filter(([id]) => bReceived.has(id)).map(([id, sent]) => bReceived.get(id) - sent);
  return { sorted: latencies.sort((x, y) => x - y), started: sentAt.size };
}

/** Runs `measure` and answers its result with the CPU each part used meanwhile, in % of one core. */
async function withCpu(measure) {
  const before = processCpu();
  const t0 = performance.now();
  const result = await measure();
  const used = cpuUsed(before, processCpu(), system);
  if (!used) return [result, 'n/a'];
  const seconds = (performance.now() - t0) / 1000;
  const { 'webhook-delivery': worker, postgres, redis, unrelated, bench, ...apps } = used;
  const others = Object.values(apps).reduce((sum, x) => sum + x, 0) + bench;
  return [result, [worker, postgres, redis, others, unrelated].map((x) => Math.round((x / seconds) * 100)).join(', ')];
}

try {
  const keyB = createUser(`bench-b-${Date.now()}@example.test`);
  const agentA = (await must(KEY, 'POST', '/v1/agents', {}, 201)).agent.agent_id;
  for (let i = 0; i < A_WEBHOOKS; i++) {
    const events = ['run.started', 'run.completed', 'run.failed', 'run.stopped', 'run.paused'];
    await must(KEY, 'POST', `/v1/agents/${agentA}/webhooks`, { url: `http://127.0.0.1:${portA}/a/${i}`, events }, 201);
  }
  const agentB = (await must(keyB, 'POST', '/v1/agents', {}, 201)).agent.agent_id;
  await must(keyB, 'POST', `/v1/agents/${agentB}/webhooks`, { url: `http://127.0.0.1:${portB}/b`, events: ['run.started'] }, 201);

  const idle = await measureB(keyB, agentB, SECONDS, 'A idle');

  // A's steady load, for as long as B is measured again: first to a receiver that answers, then to one that hangs.
  let aRuns = 0;
  let stopA = false;
  const aLoad = (async () => {
    const t0 = performance.now();
    for (let n = 0; !stopA; n++) {
      await sleep(Math.max(0, t0 + (n * 1000) / A_RATE - performance.now()));
      if (stopA) break;
      await must(KEY, 'POST', `/v1/agents/${agentA}/runs`, { skip_deploy_check: true }, 201);
      aRuns += 1;
    }
  })();
  const beforeHealthy = await counters();
  const [healthy, healthyCpu] = await withCpu(() => measureB(keyB, agentB, SECONDS, "A's 20 webhooks answering"));
  const afterHealthy = await counters();
  aHangs = true;
  const aRunsBefore = aRuns;
  const before = await counters();
  const [hung, hungCpu] = await withCpu(() => measureB(keyB, agentB, HANG_SECONDS, "A's 20 webhooks hanging"));
  stopA = true;
  await aLoad;
  const after = await counters();

  const p = (r, q) => Math.round(percentile(r.sorted, q));
  const ratio = (r, base, q) => (p(r, q) / p(base, q)).toFixed(2);
  const mostPerWebhook = Math.max(0, ...aMostOpen.values());
  process.stdout.write(
    `\nbench:fairness-deliveries (${FAIRNESS ? 'limits and circuit breaker at their defaults' : 'limits and circuit breaker OFF'}): ` +
      `B starts ${RATE} runs/s; A starts ${A_RATE} runs/s = ${A_RATE * 2 * A_WEBHOOKS} deliveries/s to 20 webhooks that never answer\n`,
  );
  report('fairness-deliveries', [
    { metric: 'B: run start -> delivery received p50, A idle', value: p(idle, 50), unit: 'ms' },
    { metric: 'B: run start -> delivery received p99, A idle', value: p(idle, 99), unit: 'ms' },
    { metric: "B: p50, A's 20 webhooks answering", value: p(healthy, 50), unit: 'ms' },
    { metric: "B: p99, A's 20 webhooks answering", value: p(healthy, 99), unit: 'ms' },
    { metric: "B: p50, A's 20 webhooks hanging", value: p(hung, 50), unit: 'ms' },
    { metric: "B: p99, A's 20 webhooks hanging", value: p(hung, 99), unit: 'ms' },
    { metric: 'B: p50 / p99 hanging over idle', value: `${ratio(hung, idle, 50)} / ${ratio(hung, idle, 99)}`, unit: 'x' },
    // The same load of A's with and without the hang: what the hanging itself does to B.
    { metric: 'B: p50 / p99 hanging over answering', value: `${ratio(hung, healthy, 50)} / ${ratio(hung, healthy, 99)}`, unit: 'x', target: '<= 1.5 each' },
    {
      metric: "B's deliveries received / B's runs (idle, answering, hanging)",
      value: [idle, healthy, hung].map((r) => `${r.sorted.length}/${r.started}`).join(', '),
      unit: '',
    },
    { metric: "deliveries deferred while answering (A's bursts over its 25)", value: afterHealthy.deferred - beforeHealthy.deferred, unit: '' },
    { metric: 'A: runs started while hanging', value: aRuns - aRunsBefore, unit: 'runs' },
    { metric: "A: most in flight at A's receiver, one webhook / all", value: `${mostPerWebhook} / ${aMostOpenAll}`, unit: '' },
    { metric: "A: requests its receiver got while hanging", value: aRequests, unit: '' },
    { metric: 'deliveries deferred while hanging (by a circuit)', value: `${after.deferred - before.deferred} (${after.deferredByCircuit - before.deferredByCircuit})`, unit: '' },
    { metric: 'circuits opened (incl. again after a failed probe)', value: after.opened - before.opened, unit: '' },
    { metric: 'CPU while answering: webhook-delivery, PostgreSQL, Redis, other apps, not ours', value: healthyCpu, unit: '% of one core' },
    { metric: 'CPU while hanging: webhook-delivery, PostgreSQL, Redis, other apps, not ours', value: hungCpu, unit: '% of one core' },
  ]);
} finally {
  await system.stop();
  receiverA.closeAllConnections();
  receiverA.close();
  receiverB.close();
}
