// Starts the compiled apps as separate processes on a database and Redis prefix of
// the benchmark's own, and removes both afterwards. Used by every bench/*.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { NODE_FLAGS, entry, ensureBuilt } = require('../../scripts/apps.js');
const { Client } = require('pg');
const Redis = require('ioredis');

export const PG_ADMIN = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A database and a Redis prefix of a benchmark's own: `aas_bench_<id>`, `aas-bench-<id>`. */
export function benchNames() {
  const id = randomBytes(4).toString('hex');
  const database = `aas_bench_${id}`;
  const url = new URL(PG_ADMIN);
  url.pathname = `/${database}`;
  return { database, databaseUrl: url.toString(), redisPrefix: `aas-bench-${id}` };
}

/** Drops a benchmark's database and deletes its Redis keys. */
export async function removeBenchData({ database, redisPrefix }) {
  const pg = new Client({ connectionString: PG_ADMIN });
  await pg.connect();
  await pg.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  await pg.end();
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${redisPrefix}:*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}

/**
 * `apps` may name an app twice to run two processes of it. `appEnv` and `nodeArgs` (e.g. `['--cpu-prof']`)
 * apply to every process of the app they name; `processEnv[i]` to the i-th process only (a second
 * gateway needs a PORT of its own).
 */
export async function startSystem({ apps, env = {}, appEnv = {}, processEnv = [], nodeArgs = {}, gatewayPort = 3900 }) {
  ensureBuilt();
  const names = benchNames();
  const base = {
    ...process.env,
    DATABASE_URL: names.databaseUrl,
    REDIS_URL,
    REDIS_PREFIX: names.redisPrefix,
    LOG_LEVEL: 'warn',
    PORT: String(gatewayPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
    WEBHOOK_SECRET_KEY: Buffer.from('benchmark-only-webhook-key-32byt').toString('base64'),
    ...env,
  };
  for (const app of new Set(apps.filter((a) => a !== 'api-gateway'))) {
    const result = spawnSync(process.execPath, [entry(app), 'migrate'], { env: base, stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`${app} migrate failed`);
  }
  const healthPorts = apps.map((_, i) => gatewayPort + 1 + i);
  const children = apps.map((app, i) =>
    spawn(process.execPath, [...NODE_FLAGS, ...profiling(app), ...(nodeArgs[app] ?? []), entry(app)], {
      env: { ...base, HEALTH_PORT: String(healthPorts[i]), ...(appEnv[app] ?? {}), ...(processEnv[i] ?? {}) },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  // A benchmark that dies must not leave its apps running (they hold the ports the next run needs).
  const killAll = () => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL'));
  process.once('exit', killAll);
  async function stop() {
    process.off('exit', killAll);
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', resolve)))));
    await removeBenchData(names);
  }
  const url = `http://127.0.0.1:${gatewayPort}`;
  try {
    await waitReady([`${url}/healthz`, ...apps.flatMap((app, i) => (app === 'api-gateway' ? [] : [`http://127.0.0.1:${healthPorts[i]}/readyz`]))]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    databaseUrl: names.databaseUrl,
    redisPrefix: names.redisPrefix,
    /** Each app process, in the order of `apps`, e.g. to read its CPU time. */
    processes: children.map((child, i) => ({ app: apps[i], pid: child.pid })),
    stop,
  };
}

/** BENCH_CPU_PROF=<dir>: each app writes a V8 CPU profile into <dir>/<app>/ when it stops (open it in Chrome DevTools). */
function profiling(app) {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}/${app}`] : [];
}

/** Every app answers its own health check (the gateway's /healthz, each back-end app's /readyz). */
async function waitReady(healthUrls) {
  const until = Date.now() + 90_000;
  while (Date.now() < until) {
    const ok = await Promise.all(healthUrls.map((u) => fetch(u).then((r) => r.ok, () => false)));
    if (ok.every(Boolean)) return;
    await sleep(200);
  }
  throw new Error('the system did not become ready within 90 s');
}

export async function api(url, key, method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** Runs `task` from `concurrency` loops until `durationMs` is over; returns how many completed. */
export async function forDuration(durationMs, concurrency, task, onProgress) {
  const until = Date.now() + durationMs;
  let done = 0;
  const ticker = setInterval(() => onProgress?.(done, until - Date.now()), 1000);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await task();
        done += 1;
      }
    }),
  );
  clearInterval(ticker);
  return done;
}
