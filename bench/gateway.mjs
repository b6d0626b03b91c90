// npm run bench:gateway — gateway throughput and latency at 50 connections (autocannon) for
// GET /v1/agents/{id} and POST /v1/agents, and the same GET served by the strongest plain design
// (bench/reference/agents-server.mjs: one Fastify + pg process, verified keys in memory, one query)
// measured in the same run, as the reference: throughput and p99 are reported as ratios of it.
// The GET is measured at LOG_LEVEL=warn (no request logs) and, on a second gateway, at the default
// info (a log line per request): the difference is what request logging costs. The three GETs are
// measured in alternating rounds and each figure is the median over the rounds (see `interleaved`).
//   BENCH_ROUNDS (default 7) of BENCH_ROUND_SECONDS (default 4) for the GETs, after 2 s of warm-up each;
//   BENCH_SECONDS (default 10) for the POST; BENCH_CONNECTIONS (default 50);
//   BENCH_AGENTS_QUOTA (QUOTA_AGENTS_PER_USER; default 0, off: the POSTs make thousands of agents of one user)
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { load as loadFor, median } from './support/load.mjs';
import { report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';
import { cpuUsed, processCpu } from './support/cpu.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_SECONDS = Number(process.env.BENCH_ROUND_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const KEY = `bench-${Date.now()}-key-0123456789`;
const REFERENCE_PORT = 3950;

/** One autocannon measurement at CONNECTIONS, of BENCH_SECONDS unless `options.duration` says otherwise. */
const load = (title, options, quiet = false) => loadFor(title, { connections: CONNECTIONS, duration: SECONDS, ...options }, { quiet });

/**
 * The machine's speed drifts by a quarter within minutes, so the three GET targets are measured in
 * alternating rounds (each round in another order) and every figure is the median over the rounds;
 * ratios are taken within a round, between measurements seconds apart.
 */
async function interleaved(targets) {
  const rounds = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    process.stderr.write(`  round ${round + 1}/${ROUNDS}: ${ROUND_SECONDS} s of each of ${targets.map((t) => t.name).join(', ')}...\n`);
    const order = targets.map((_, i) => targets[(i + round) % targets.length]);
    for (const target of order) {
      const before = target.beforeRound?.();
      const result = await load(target.name, { ...target.options, duration: ROUND_SECONDS }, true);
      target.afterRound?.(before, result);
      rounds[target.name].push(result);
    }
  }
  return rounds;
}

async function startReference(databaseUrl) {
  const server = spawn(process.execPath, [fileURLToPath(new URL('./reference/agents-server.mjs', import.meta.url)), String(REFERENCE_PORT), databaseUrl], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${REFERENCE_PORT}/v1/agents/x`).then(() => true, () => false);
    if (up) return server;
    await sleep(100);
  }
  throw new Error('the reference server did not start');
}

const INFO_GATEWAY_PORT = 3911;
const system = await startSystem({
  apps: ['agents-service', 'api-gateway', 'api-gateway'],
  processEnv: [{}, {}, { PORT: String(INFO_GATEWAY_PORT), LOG_LEVEL: 'info' }],
  // POST /v1/agents makes thousands of agents for one user: past QUOTA_AGENTS_PER_USER's default, so it is off
  // unless BENCH_AGENTS_QUOTA sets one (a large one measures what counting costs).
  env: { BOOTSTRAP_API_KEY: KEY, RATE_LIMIT_REQUESTS: '0', QUOTA_AGENTS_PER_USER: process.env.BENCH_AGENTS_QUOTA ?? '0', LOG_LEVEL: 'warn' },
});
let reference;
try {
  const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
  const headers = { 'x-api-key': KEY };
  reference = await startReference(system.databaseUrl);
  const infoUrl = `http://127.0.0.1:${INFO_GATEWAY_PORT}`;
  for (let i = 0; i < 100 && !(await fetch(`${infoUrl}/healthz`).then((r) => r.ok, () => false)); i++) await sleep(100);
  const path = `/v1/agents/${agentId}`;
  // The gateway's CPU per GET, summed over its rounds (the other gateway is idle meanwhile).
  const cpu = {};
  let gets = 0;
  const referenceCpu = { server: 0, postgres: 0 };
  // The two gateways, at warn and at info: what each spends per GET in its own rounds.
  const [warnGateway, infoGateway] = system.processes.filter((p) => p.app === 'api-gateway');
  let warnGatewayCpu = 0;
  let loggedGatewayCpu = 0;
  let loggedGets = 0;
  let referenceGets = 0;
  const targets = [
    {
      name: 'gateway',
      options: { url: system.url + path, headers },
      beforeRound: () => processCpu(),
      afterRound: (before, result) => {
        const after = processCpu();
        for (const [app, seconds] of Object.entries(cpuUsed(before, after, system) ?? {})) cpu[app] = (cpu[app] ?? 0) + seconds;
        warnGatewayCpu += (after.get(warnGateway.pid)?.seconds ?? NaN) - (before.get(warnGateway.pid)?.seconds ?? NaN);
        gets += result.total;
      },
    },
    {
      name: 'reference',
      options: { url: `http://127.0.0.1:${REFERENCE_PORT}${path}`, headers },
      beforeRound: () => processCpu(),
      afterRound: (before, result) => {
        const after = processCpu();
        referenceCpu.postgres += cpuUsed(before, after, system)?.postgres ?? NaN;
        referenceCpu.server += (after.get(reference.pid)?.seconds ?? NaN) - (before.get(reference.pid)?.seconds ?? NaN);
        referenceGets += result.total;
      },
    },
    {
      name: 'gateway at LOG_LEVEL=info',
      options: { url: infoUrl + path, headers },
      beforeRound: () => processCpu(),
      afterRound: (before, result) => {
        const after = processCpu();
        loggedGatewayCpu += (after.get(infoGateway.pid)?.seconds ?? NaN) - (before.get(infoGateway.pid)?.seconds ?? NaN);
        loggedGets += result.total;
      },
    },
  ];
  for (const target of targets) await load(`${target.name} warm-up`, { ...target.options, duration: 2 });
  const rounds = await interleaved(targets);
  const [get, ref, logged] = targets.map((t) => rounds[t.name]);
  const eachRound = (f) => get.map((_, i) => f(get[i], ref[i], logged[i]));
  const figure = (results, key) => median(results.map((r) => r[key]));
  const cpuPerGet = [...new Set(system.processes.map((p) => p.app)), 'postgres', 'redis'].map((app) => ({ app, us: Math.round(((cpu[app] ?? NaN) * 1e6) / gets) }));
  const post = await load('gateway POST /v1/agents', {
    url: `${system.url}/v1/agents`,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: '{}',
  });
  const round2 = (x) => Number(x.toFixed(2));
  const perRound = (values) => values.map(round2).join(' ');
  const throughputRatios = eachRound((g, r) => g.rps / r.rps);
  const p99Ratios = eachRound((g, r) => g.p99 / r.p99);
  const loggingCosts = eachRound((g, _r, l) => 1 - l.rps / g.rps);
  process.stderr.write(`  per round: throughput ratio ${perRound(throughputRatios)}; p99 ratio ${perRound(p99Ratios)}; logging cost ${perRound(loggingCosts)}\n`);

  report('gateway', [
    { metric: 'GET /v1/agents/{id} throughput', value: Math.round(figure(get, 'rps')), unit: 'req/s' },
    { metric: 'GET /v1/agents/{id} latency p50', value: figure(get, 'p50'), unit: 'ms' },
    { metric: 'GET /v1/agents/{id} latency p99', value: figure(get, 'p99'), unit: 'ms', target: '< 25 ms' },
    ...cpuPerGet.map(({ app, us }) => ({ metric: `GET /v1/agents/{id}: ${app} CPU per request`, value: us, unit: 'µs' })),
    { metric: 'POST /v1/agents throughput', value: Math.round(post.rps), unit: 'req/s' },
    { metric: 'POST /v1/agents latency p50', value: post.p50, unit: 'ms' },
    { metric: 'POST /v1/agents latency p99', value: post.p99, unit: 'ms' },
    { metric: 'reference GET (keys in memory, one query) throughput', value: Math.round(figure(ref, 'rps')), unit: 'req/s' },
    { metric: 'reference GET latency p99', value: figure(ref, 'p99'), unit: 'ms' },
    ...Object.entries(referenceCpu).map(([part, seconds]) => ({ metric: `reference GET: ${part} CPU per request`, value: Math.round((seconds * 1e6) / referenceGets), unit: 'µs' })),
    { metric: 'gateway GET / reference GET, throughput', value: round2(median(throughputRatios)), unit: 'x', target: '>= 0.5' },
    { metric: 'gateway GET p99 / reference GET p99', value: round2(median(p99Ratios)), unit: 'x', target: '<= 2' },
    { metric: 'GET throughput at LOG_LEVEL=info', value: Math.round(figure(logged, 'rps')), unit: 'req/s' },
    { metric: 'request logging cost (1 - info / warn throughput)', value: round2(median(loggingCosts)), unit: '', target: '<= 0.10' },
    {
      metric: 'gateway CPU per GET at info / at warn',
      value: round2(loggedGatewayCpu / loggedGets / (warnGatewayCpu / gets)),
      unit: 'x',
    },
  ]);
} finally {
  reference?.kill('SIGTERM');
  await system.stop();
}
