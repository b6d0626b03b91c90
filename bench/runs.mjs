// npm run bench:runs — the run path (accept a run, execute it with the built-in runtime at no step
// delay, record its events) of the service, all apps as separate processes, against the plain
// reference of bench/reference/run-path/ (an API process and a BullMQ worker, same stack, same
// durability, the same three events per run), in alternating rounds: each round POSTs runs at
// BENCH_CONNECTIONS connections for BENCH_ROUND_SECONDS to one side, for one user and 10 agents, then
// waits until every run it accepted has finished. For each side: runs accepted/s, completed/s
// (accepted runs / round start to the last finished_at), accept p50/p99, CPU per completed run of
// every process (PostgreSQL included: the side's backends and the server's own processes), and
// PostgreSQL transactions per run; and the service / reference ratios, each the median of the
// rounds' ratios. The limits on executing runs are at 1,000 so that they do not bind, the cap on
// waiting runs and the rate limit are off, LOG_LEVEL=warn.
//   BENCH_ROUNDS (default 3), BENCH_ROUND_SECONDS (default 15), BENCH_CONNECTIONS (default 50),
//   BENCH_PLAN_STEPS (default 0: the built-in runtime's one step, three events per run),
//   BENCH_PG_SAMPLE=1: samples each side's pg_stat_activity every 100 ms in its rounds and prints what
//   its backends were doing (BENCH_CPU_PROF=<dir> profiles the service's apps, bench/support/profile-top.mjs)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRunPathReference } from './reference/run-path/start.mjs';
import { cpuUsed, processCpu } from './support/cpu.mjs';
import { load, median } from './support/load.mjs';
import { sampleActivity } from './support/pg-activity.mjs';
import { report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const PLAN_STEPS = Number(process.env.BENCH_PLAN_STEPS ?? 0);
const PG_SAMPLE = process.env.BENCH_PG_SAMPLE === '1';
const AGENTS = 10;
const KEY = `bench-${Date.now()}-key-0123456789`;
const UNBINDING_LIMIT = '1000';
/** PostgreSQL flushes a backend's counters (pg_stat_database) at most every 10 s while it is idle. */
const STATS_SETTLE_MS = 11_000;

const planSteps = Array.from({ length: PLAN_STEPS }, (_, order) => ({ title: `step ${order}`, description: '', tools: [], order }));

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'api-gateway', 'scheduler-service', 'webhook-delivery'],
  env: {
    BOOTSTRAP_API_KEY: KEY,
    BUILTIN_RUNTIME_STEP_MS: '0',
    RUN_WORKER_CONCURRENCY: '50',
    RUN_CONCURRENCY_PER_USER: UNBINDING_LIMIT,
    RUN_CONCURRENCY_PER_AGENT: UNBINDING_LIMIT,
    QUOTA_WAITING_RUNS_PER_USER: '0',
    RATE_LIMIT_REQUESTS: '0',
  },
});
let reference;
const clients = [];
try {
  reference = await startRunPathReference({ key: KEY, workerConcurrency: 50 });
  const sides = [await serviceSide(), await referenceSide()];
  for (const side of sides) await measureRound(side, 3, { warmUp: true });
  // What each side commits at rest (relays and workers polling), taken out of its transactions per run.
  await sleep(STATS_SETTLE_MS);
  for (const side of sides) side.xactBefore = await side.xactCommits();
  const idleFrom = Date.now();
  await sleep(STATS_SETTLE_MS);
  for (const side of sides) side.idleXactPerSecond = ((await side.xactCommits()) - side.xactBefore) / ((Date.now() - idleFrom) / 1000);
  const benchFrom = Date.now();
  for (const side of sides) {
    side.xactBefore = await side.xactCommits();
    side.polls = 0;
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const result = await measureRound(side, ROUND_SECONDS);
      side.rounds.push(result);
      process.stderr.write(
        `  round ${round + 1}/${ROUNDS} ${side.name}: ${result.accepted} accepted (${result.acceptedPerSecond.toFixed(1)}/s), ${result.completedPerSecond.toFixed(1)} completed/s, ` +
          `p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.cpuMsPerRun.total.toFixed(2)} ms CPU per run, load ${result.load.join('-')}\n`,
      );
    }
  }
  await sleep(STATS_SETTLE_MS);
  const benchSeconds = (Date.now() - benchFrom) / 1000;
  for (const side of sides) {
    const activeSeconds = side.rounds.reduce((sum, r) => sum + r.seconds, 0);
    const busy = (await side.xactCommits()) - side.xactBefore - side.polls - (side.activity.samples ?? 0) - side.idleXactPerSecond * (benchSeconds - activeSeconds);
    side.xactPerRun = busy / side.rounds.reduce((sum, r) => sum + r.accepted, 0);
  }
  printReport(sides);
  if (PG_SAMPLE) for (const side of sides) printActivity(side.name, await side.activity.stop());
} finally {
  for (const client of clients) await client.end();
  await reference?.stop();
  await system.stop();
}

async function serviceSide() {
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    if (PLAN_STEPS > 0) await api(system.url, KEY, 'PUT', `/v1/agents/${agentId}/instructions`, { content: 'bench', plan_steps: planSteps });
    agents.push(agentId);
  }
  return side('service', system, agents, 'runs');
}

async function referenceSide() {
  const agents = [];
  for (let i = 0; i < AGENTS; i++) agents.push(await reference.createAgent(planSteps));
  return side('reference', reference, agents, 'public');
}

/** What a round needs of one side: where to POST, its processes, and its database to watch runs finish. */
async function side(name, target, agents, schema) {
  const db = new Client({ connectionString: target.databaseUrl, options: `-c search_path=${schema}` });
  await db.connect();
  clients.push(db);
  const self = {
    name,
    url: target.url,
    paths: agents.map((agentId) => `/v1/agents/${agentId}/runs`),
    processes: { processes: target.processes, databaseUrl: target.databaseUrl },
    rounds: [],
    polls: 0,
    activity: PG_SAMPLE ? await sampleActivity(target.databaseUrl) : { active: false },
    async runsSince(since) {
      self.polls += 1;
      const { rows } = await db.query(
        'SELECT count(*)::int AS accepted, count(*) FILTER (WHERE NOT is_finished)::int AS unfinished, max(finished_at) AS last FROM runs WHERE started_at >= $1',
        [since],
      );
      return rows[0];
    },
    async xactCommits() {
      self.polls += 1;
      const { rows } = await db.query('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()');
      return Number(rows[0].xact_commit);
    },
  };
  return self;
}

/** POSTs runs to `side` for `seconds`, then waits for every one to finish; CPU from start to the last one's end. */
async function measureRound(side, seconds, { warmUp = false } = {}) {
  const loadBefore = loadAverage();
  const cpuBefore = processCpu();
  const from = new Date();
  side.activity.active = !warmUp;
  let n = 0;
  const accepted = await load(
    `${side.name} ${warmUp ? 'warm-up' : 'round'}`,
    {
      url: side.url,
      connections: CONNECTIONS,
      duration: seconds,
      method: 'POST',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ skip_deploy_check: true }),
      requests: [{ setupRequest: (request) => ({ ...request, path: side.paths[n++ % side.paths.length] }) }],
    },
    { quiet: !warmUp, tolerateNon2xx: true },
  );
  if (accepted.non2xx > 0) process.stderr.write(`  ${side.name}: ${accepted.non2xx} of ${accepted.total} starts refused (${accepted.statuses})\n`);
  let runs = await side.runsSince(from);
  while (runs.unfinished > 0) {
    await sleep(200);
    runs = await side.runsSince(from);
  }
  const cpu = cpuUsed(cpuBefore, processCpu(), side.processes) ?? {};
  side.activity.active = false;
  const elapsed = (runs.last - from) / 1000;
  const parts = [...new Set(side.processes.processes.map((p) => p.app)), 'postgres', 'redis'];
  const cpuMsPerRun = Object.fromEntries(parts.map((part) => [part, ((cpu[part] ?? NaN) * 1000) / runs.accepted]));
  cpuMsPerRun.total = parts.reduce((sum, part) => sum + cpuMsPerRun[part], 0);
  return {
    accepted: runs.accepted,
    acceptedPerSecond: (accepted.total - accepted.non2xx) / seconds,
    refused: accepted.non2xx,
    completedPerSecond: runs.accepted / elapsed,
    p50: accepted.p50,
    p99: accepted.p99,
    cpuMsPerRun,
    unrelatedCpuShare: (cpu.unrelated ?? NaN) / elapsed,
    seconds: (Date.now() - from) / 1000,
    load: [loadBefore, loadAverage()],
  };
}

/** The 1-minute load average (Linux). */
function loadAverage() {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

function printReport([service, ref]) {
  const med = (s, f) => median(s.rounds.map(f));
  const ratio = (f) => median(service.rounds.map((r, i) => f(r) / f(ref.rounds[i])));
  const round1 = (x) => Math.round(x * 10) / 10;
  const round2 = (x) => Math.round(x * 100) / 100;
  const perRound = (s, f) => s.rounds.map((r) => round1(f(r))).join(' / ');
  const loads = [...service.rounds, ...ref.rounds].flatMap((r) => r.load);
  process.stdout.write(
    `\nbench:runs: ${ROUNDS} paired rounds of ${ROUND_SECONDS} s at ${CONNECTIONS} connections, one user, ${AGENTS} agents, ${Math.max(PLAN_STEPS, 1) + 2} events per run; ` +
      `load average ${Math.min(...loads)}-${Math.max(...loads)}; other processes on the machine used ${perRound(service, (r) => r.unrelatedCpuShare * 100)} % (service rounds), ${perRound(ref, (r) => r.unrelatedCpuShare * 100)} % (reference rounds) of a core\n` +
      `  per round, service / reference: accepted/s ${perRound(service, (r) => r.acceptedPerSecond)} | ${perRound(ref, (r) => r.acceptedPerSecond)}; ` +
      `completed/s ${perRound(service, (r) => r.completedPerSecond)} | ${perRound(ref, (r) => r.completedPerSecond)}; ` +
      `CPU ms per run ${perRound(service, (r) => r.cpuMsPerRun.total)} | ${perRound(ref, (r) => r.cpuMsPerRun.total)}\n`,
  );
  const figures = [];
  for (const s of [service, ref]) {
    figures.push(
      { metric: `${s.name}: runs accepted per second`, value: round1(med(s, (r) => r.acceptedPerSecond)), unit: 'runs/s' },
      { metric: `${s.name}: runs completed per second`, value: round1(med(s, (r) => r.completedPerSecond)), unit: 'runs/s' },
      { metric: `${s.name}: accept latency p50`, value: round1(med(s, (r) => r.p50)), unit: 'ms', ...(s === service ? { target: '< 100 ms' } : {}) },
      { metric: `${s.name}: accept latency p99`, value: round1(med(s, (r) => r.p99)), unit: 'ms', ...(s === service ? { target: '< 500 ms' } : {}) },
      ...Object.keys(s.rounds[0].cpuMsPerRun).map((part) => ({ metric: `${s.name}: CPU per completed run, ${part}`, value: round2(med(s, (r) => r.cpuMsPerRun[part])), unit: 'ms' })),
      { metric: `${s.name}: PostgreSQL transactions per run`, value: round1(s.xactPerRun), unit: '' },
      { metric: `${s.name}: starts answered non-2xx, all rounds`, value: s.rounds.reduce((sum, r) => sum + r.refused, 0), unit: '' },
    );
  }
  figures.push(
    { metric: 'service / reference, runs accepted per second', value: round2(ratio((r) => r.acceptedPerSecond)), unit: 'x' },
    { metric: 'service / reference, runs completed per second', value: round2(ratio((r) => r.completedPerSecond)), unit: 'x', target: '>= 0.5' },
    { metric: 'service / reference, CPU per completed run', value: round2(ratio((r) => r.cpuMsPerRun.total)), unit: 'x', target: '<= 2' },
  );
  report('runs', figures);
}

function printActivity(name, rows) {
  process.stdout.write(`\n${name}: PostgreSQL backends not idle, average per sample (state, wait event, statement)\n`);
  for (const { backends, key } of rows.slice(0, 15)) process.stdout.write(`  ${backends.toFixed(2).padStart(6)}  ${key}\n`);
}
