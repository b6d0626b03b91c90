// npm run bench:retention — the retention purge (docs/retention.md): how fast it deletes finished runs
// with their events (runs/s, events/s) and their webhook deliveries, what a run with its events takes on
// disk, and the p99 of run GETs through the gateway while a purge runs against the same without one.
//
// Paired rounds (BENCH_ROUNDS, default 3): each round sets a fresh chunk of BENCH_CHUNK runs (default
// 10,000, each with BENCH_EVENTS events, default 20, one delivery and one attempt) back past the
// retention, measures GETs for BENCH_SECONDS (default 5) with no purge, then starts the purge (the same
// job the periodic schedule adds) and measures GETs again while it runs. The p99 figures are the medians
// over the rounds; the target: during a purge within 1.5x of without. The runs are written straight into
// the runs and webhooks schemas (an API start per run would take hours). The purge runs with the
// defaults (RUN_PURGE_BATCH_SIZE 200, RUN_PURGE_PAUSE_MS 200) unless BENCH_BATCH / BENCH_PAUSE_MS say otherwise.
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from './support/load.mjs';
import { percentile, report } from './support/report.mjs';
import { REDIS_URL, api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const { Queue } = require('bullmq');
const Redis = require('ioredis');

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CHUNK = Number(process.env.BENCH_CHUNK ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const KEPT = 2_000;
const KEY = `bench-${Date.now()}-key-0123456789`;
const purgeEnv = {
  ...(process.env.BENCH_BATCH ? { RUN_PURGE_BATCH_SIZE: process.env.BENCH_BATCH } : {}),
  ...(process.env.BENCH_PAUSE_MS ? { RUN_PURGE_PAUSE_MS: process.env.BENCH_PAUSE_MS } : {}),
};

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'webhook-delivery', 'api-gateway'],
  // The periodic purge waits a day: this benchmark starts each purge itself.
  env: { BOOTSTRAP_API_KEY: KEY, RATE_LIMIT_REQUESTS: '0', RUN_PURGE_INTERVAL_MS: '86400000', ...purgeEnv },
  gatewayPort: Number(process.env.BENCH_GATEWAY_PORT ?? 4960),
});
const pg = new Client({ connectionString: system.databaseUrl });
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const maintenance = new Queue('runs-maintenance', { connection: redis, prefix: system.redisPrefix });
try {
  await pg.connect();
  const me = (await api(system.url, KEY, 'GET', '/v1/me')).body;
  const first = await api(system.url, KEY, 'POST', '/v1/agents', {});
  if (first.status !== 201) throw new Error(`creating an agent: ${first.status} ${JSON.stringify(first.body)}`);
  const kept = first.body.agent.agent_id;
  const purged = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
  process.stderr.write(`  writing ${KEPT} kept runs and ${ROUNDS} x ${CHUNK} runs to purge, ${EVENTS} events each...\n`);
  const keptIds = await writeRuns(me.user_id, kept, 1, KEPT);
  const webhookId = await writeWebhook(me.user_id, purged);
  for (let round = 0; round < ROUNDS; round++) {
    const ids = await writeRuns(me.user_id, purged, round * CHUNK + 1, (round + 1) * CHUNK);
    await writeDeliveries(webhookId, ids);
  }
  await pg.query('VACUUM ANALYZE runs.runs, runs.run_events, webhooks.deliveries, webhooks.delivery_attempts');
  await pg.query('CHECKPOINT');
  const disk = await diskPerRun();

  const get = () => {
    const runId = keptIds[Math.floor(Math.random() * keptIds.length)];
    return fetch(`${system.url}/v1/agents/${kept}/runs/${runId}`, { headers: { 'x-api-key': KEY } });
  };
  process.stderr.write('  warming up the apps (5 s)...\n');
  await measure(get, 5_000);

  const without = [];
  const during = [];
  const rates = [];
  for (let round = 0; round < ROUNDS; round++) {
    const from = round * CHUNK + 1;
    await pg.query(`UPDATE runs.runs SET finished_at = now() - interval '60 days' WHERE agent_id = $1 AND run_number BETWEEN $2 AND $3`, [
      purged,
      from,
      from + CHUNK - 1,
    ]);
    process.stderr.write(`  round ${round + 1}: GETs without a purge...\n`);
    without.push(await measure(get, SECONDS * 1000));
    process.stderr.write(`  round ${round + 1}: GETs during a purge of ${CHUNK} runs...\n`);
    const started = Date.now();
    await maintenance.add('purge-expired-runs', {});
    const purge = purgeDone(purged, from, started);
    during.push(await measure(get, SECONDS * 1000, purge.running));
    rates.push(await purge.finished);
  }

  const p99 = (windows) => median(windows.map((w) => w.p99));
  const [p99Without, p99During] = [p99(without), p99(during)];
  const runsPerSecond = median(rates.map((r) => CHUNK / r.runsSeconds));
  const deliveriesPerSecond = median(rates.map((r) => CHUNK / r.deliveriesSeconds));
  report('retention', [
    { metric: `disk: a run with ${EVENTS} events (runs + run_events)`, value: Math.round(disk.run), unit: 'bytes' },
    { metric: '  of which one event', value: Math.round(disk.event), unit: 'bytes' },
    { metric: 'disk: a delivery with one attempt', value: Math.round(disk.delivery), unit: 'bytes' },
    { metric: 'purge rate: runs', value: Math.round(runsPerSecond), unit: 'runs/s' },
    { metric: 'purge rate: events', value: Math.round(runsPerSecond * EVENTS), unit: 'events/s' },
    { metric: 'purge rate: deliveries (webhook-delivery)', value: Math.round(deliveriesPerSecond), unit: 'deliveries/s' },
    { metric: 'run GET p50 without / during a purge', value: `${median(without.map((w) => w.p50))} / ${median(during.map((w) => w.p50))}`, unit: 'ms' },
    { metric: 'run GET p99 without / during a purge', value: `${p99Without} / ${p99During}`, unit: 'ms' },
    { metric: 'run GET p99 during / without', value: Math.round((p99During / p99Without) * 100) / 100, unit: 'x', target: '< 1.5x' },
    { metric: 'run GETs measured without / during (all rounds)', value: `${sum(without)} / ${sum(during)}`, unit: 'requests' },
  ]);
} finally {
  await maintenance.close();
  redis.disconnect();
  await pg.end();
  await system.stop();
}

/** Finished runs `from`..`to` of the agent, a minute apart, each with EVENTS events; answers their ids. */
async function writeRuns(userId, agentId, from, to) {
  const { rows } = await pg.query(
    `INSERT INTO runs.runs (id, agent_id, user_id, user_email, run_number, run_mode, run_kind, trigger_kind, status, outcome,
                           is_finished, goal, policy_type, event_count, started_at, last_event_at, finished_at)
     SELECT gen_random_uuid(), $1, $2, 'bench@example.test', n, 'run', 'api', 'api', 'completed', 'success', true,
            'goal ' || n, 'runner', $5, now() - n * interval '1 minute', now() - n * interval '1 minute', now() - n * interval '1 minute'
       FROM generate_series($3::int, $4::int) AS n
     RETURNING id`,
    [agentId, userId, from, to, EVENTS],
  );
  const ids = rows.map((r) => r.id);
  await pg.query(
    `INSERT INTO runs.run_events (run_id, event_index, recorded_at, event)
     SELECT id, i, now(), jsonb_build_object('type', 'step', 'index', i, 'text', repeat('x', 200)) FROM unnest($1::uuid[]) AS id, generate_series(1, $2) AS i`,
    [ids, EVENTS],
  );
  return ids;
}

async function writeWebhook(userId, agentId) {
  const { rows } = await pg.query(
    `INSERT INTO webhooks.webhooks (agent_id, user_id, url, events, status, secret_sealed)
     VALUES ($1, $2, 'https://receiver.example.test/hook', ARRAY['run.completed'], 'disabled', 'sealed') RETURNING id`,
    [agentId, userId],
  );
  return rows[0].id;
}

/** One finished delivery of run.completed per run, with one attempt. */
async function writeDeliveries(webhookId, runIds) {
  await pg.query(
    `WITH d AS (
       INSERT INTO webhooks.deliveries (webhook_id, source_event_id, event, body, status, attempt_count, finished_at, run_id)
       SELECT $1, 'bench-' || id, 'run.completed', '{"event":"run.completed","data":{"run_id":"' || id || '"}}', 'succeeded', 1, now(), id
         FROM unnest($2::uuid[]) AS id
       RETURNING id)
     INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, started_at, duration_ms, status_code, response_body)
     SELECT id, 1, now(), 40, 204, 'ok' FROM d`,
    [webhookId, runIds],
  );
}

/** Bytes on disk (tables, indexes, TOAST) per run with its events, per event, and per delivery with its attempt. */
async function diskPerRun() {
  const size = async (table) => Number((await pg.query(`SELECT pg_total_relation_size($1) AS b`, [table])).rows[0].b);
  const count = async (table) => Number((await pg.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);
  const [runs, events, deliveries, attempts] = await Promise.all(
    ['runs.runs', 'runs.run_events', 'webhooks.deliveries', 'webhooks.delivery_attempts'].map(size),
  );
  const [runCount, eventCount, deliveryCount] = await Promise.all(['runs.runs', 'runs.run_events', 'webhooks.deliveries'].map(count));
  return { run: runs / runCount + events / runCount, event: events / eventCount, delivery: (deliveries + attempts) / deliveryCount };
}

/**
 * The purge of runs `from`.. of the agent, started at `started`: `running()` until its runs are gone;
 * `finished` answers how long the runs took and how long their deliveries (gone once runs.purged is consumed).
 */
function purgeDone(agentId, from, started) {
  let runsGone = false;
  const left = async (sql) => Number((await pg.query(sql, [agentId, from, from + CHUNK - 1])).rows[0].n);
  const finished = (async () => {
    const runIdsSql = `SELECT count(*) AS n FROM runs.runs WHERE agent_id = $1 AND run_number BETWEEN $2 AND $3`;
    while ((await left(runIdsSql)) > 0) await sleep(50);
    const runsSeconds = (Date.now() - started) / 1000;
    runsGone = true;
    const deliveriesSql = `SELECT count(*) AS n FROM webhooks.deliveries d
                            WHERE d.run_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs.runs r WHERE r.id = d.run_id)
                              AND $1::uuid IS NOT NULL AND $2::int > 0 AND $3::int > 0`;
    while ((await left(deliveriesSql)) > 0) await sleep(50);
    return { runsSeconds, deliveriesSeconds: (Date.now() - started) / 1000 };
  })();
  return { running: () => !runsGone, finished };
}

/** GETs from CONNECTIONS loops for `ms` (or until `going` says stop): p50/p99 of their latencies, in ms. */
async function measure(request, ms, going = () => true) {
  const latencies = [];
  const until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until && going()) {
        const t0 = performance.now();
        const res = await request();
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`run GET answered ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (p) => Math.round(percentile(latencies, p) * 10) / 10;
  return { p50: at(50), p99: at(99), count: latencies.length };
}

function sum(windows) {
  return windows.reduce((total, w) => total + w.count, 0);
}
