// npm run bench:gateway — gateway throughput and latency at 50 connections (autocannon) for
// GET /v1/agents/{id} and POST /v1/agents, and the same GET served by the strongest plain design
// (bench/reference/agents-server.mjs: one Fastify + pg process, verified keys in memory, one query)
// measured in the same run, as the reference: throughput and p99 are reported as ratios of it.
// The GET is measured at LOG_LEVEL=warn (no request logs) and, on a second gateway, at the default
// info (a log line per request): the difference is what request logging costs.
//   BENCH_SECONDS (default 10 per measurement), BENCH_CONNECTIONS (default 50),
//   BENCH_AGENTS_QUOTA (QUOTA_AGENTS_PER_USER; default 0, off: the POSTs make thousands of agents of one user)
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';
import { cpuUsed, processCpu } from './support/cpu.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const KEY = `bench-${Date.now()}-key-0123456789`;
const REFERENCE_PORT = 3950;

async function load(title, options) {
  process.stderr.write(`  ${title}: ${SECONDS} s at ${CONNECTIONS} connections...\n`);
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total };
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
  await load('warm-up', { url: `${system.url}/v1/agents/${agentId}`, headers, duration: 2 });
  const cpuBefore = processCpu();
  const get = await load('gateway GET /v1/agents/{id}', { url: `${system.url}/v1/agents/${agentId}`, headers });
  const cpu = cpuUsed(cpuBefore, processCpu(), system) ?? {};
  const cpuPerGet = [...system.processes.map((p) => p.app), 'postgres', 'redis'].map((app) => ({ app, us: Math.round((cpu[app] * 1e6) / get.total) }));
  const post = await load('gateway POST /v1/agents', {
    url: `${system.url}/v1/agents`,
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: '{}',
  });
  reference = await startReference(system.databaseUrl);
  const referenceUrl = `http://127.0.0.1:${REFERENCE_PORT}/v1/agents/${agentId}`;
  await load('reference warm-up', { url: referenceUrl, headers, duration: 2 });
  const ref = await load('reference (Fastify + pg, keys in memory) GET', { url: referenceUrl, headers });
  const infoUrl = `http://127.0.0.1:${INFO_GATEWAY_PORT}/v1/agents/${agentId}`;
  for (let i = 0; i < 100 && !(await fetch(`http://127.0.0.1:${INFO_GATEWAY_PORT}/healthz`).then((r) => r.ok, () => false)); i++) await sleep(100);
  await load('gateway at LOG_LEVEL=info warm-up', { url: infoUrl, headers, duration: 2 });
  const logged = await load('gateway GET at LOG_LEVEL=info', { url: infoUrl, headers });

  report('gateway', [
    { metric: 'GET /v1/agents/{id} throughput', value: get.rps, unit: 'req/s' },
    { metric: 'GET /v1/agents/{id} latency p50', value: get.p50, unit: 'ms' },
    { metric: 'GET /v1/agents/{id} latency p99', value: get.p99, unit: 'ms', target: '< 25 ms' },
    ...cpuPerGet.map(({ app, us }) => ({ metric: `GET /v1/agents/{id}: ${app} CPU per request`, value: us, unit: 'µs' })),
    { metric: 'POST /v1/agents throughput', value: post.rps, unit: 'req/s' },
    { metric: 'POST /v1/agents latency p50', value: post.p50, unit: 'ms' },
    { metric: 'POST /v1/agents latency p99', value: post.p99, unit: 'ms' },
    { metric: 'reference GET (keys in memory, one query) throughput', value: ref.rps, unit: 'req/s' },
    { metric: 'reference GET latency p99', value: ref.p99, unit: 'ms' },
    { metric: 'gateway GET / reference GET, throughput', value: Number((get.rps / ref.rps).toFixed(2)), unit: 'x', target: '>= 0.5' },
    { metric: 'gateway GET p99 / reference GET p99', value: Number((get.p99 / ref.p99).toFixed(2)), unit: 'x', target: '<= 2' },
    { metric: 'GET throughput at LOG_LEVEL=info', value: logged.rps, unit: 'req/s' },
    { metric: 'request logging cost (1 - info / warn throughput)', value: Number((1 - logged.rps / get.rps).toFixed(2)), unit: '', target: '<= 0.10' },
  ]);
} finally {
  reference?.kill('SIGTERM');
  await system.stop();
}
