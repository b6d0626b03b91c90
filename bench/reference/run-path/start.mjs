// Starts the run path reference (api.mjs and worker.mjs, one process each) on a database and Redis
// prefix of its own, with one user and its API key; removes both at stop.
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { PG_ADMIN, REDIS_URL, benchNames, removeBenchData } from '../../support/system.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const here = (file) => fileURLToPath(new URL(file, import.meta.url));

/** `key` becomes the one user's API key; `workerConcurrency` runs execute at once (as RUN_WORKER_CONCURRENCY). */
export async function startRunPathReference({ key, port = 3960, workerConcurrency = 50 }) {
  const names = benchNames();
  const userId = randomUUID();
  const admin = new Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${names.database}"`);
  await admin.end();
  const db = new Client({ connectionString: names.databaseUrl });
  await db.connect();
  await db.query(readFileSync(here('./schema.sql'), 'utf8'));
  await db.query('INSERT INTO api_keys (key_hash, user_id) VALUES ($1, $2)', [createHash('sha256').update(key).digest('hex'), userId]);
  const children = [
    spawn(process.execPath, [here('./api.mjs'), String(port), names.databaseUrl, REDIS_URL, names.redisPrefix], { stdio: ['ignore', 'ignore', 'inherit'] }),
    spawn(process.execPath, [here('./worker.mjs'), names.databaseUrl, REDIS_URL, names.redisPrefix, String(workerConcurrency)], { stdio: ['ignore', 'pipe', 'inherit'] }),
  ];
  const killAll = () => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL'));
  process.once('exit', killAll);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    process.off('exit', killAll);
    await db.end();
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', resolve)))));
    await removeBenchData(names);
  };
  try {
    await Promise.all([waitHealthy(url), new Promise((resolve) => children[1].stdout.once('data', resolve))]);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    databaseUrl: names.databaseUrl,
    processes: [
      { app: 'reference api', pid: children[0].pid },
      { app: 'reference worker', pid: children[1].pid },
    ],
    /** An agent of the user, deployed, with these plan steps. */
    async createAgent(planSteps = []) {
      const id = randomUUID();
      await db.query('INSERT INTO agents (id, user_id, plan_steps, deployed_at) VALUES ($1, $2, $3, now())', [id, userId, JSON.stringify(planSteps)]);
      return id;
    },
    stop,
  };
}

async function waitHealthy(url) {
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) return;
    await sleep(100);
  }
  throw new Error('the run path reference did not start');
}
