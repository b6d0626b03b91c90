// npm run bench:schedules — schedule fire lag (fire time to run created), duplicates and
// misses, with two scheduler processes. Defaults from the scheduler issue:
//   BENCH_SCHEDULES=1000 schedules, each every 10 s (spread over the 10 seconds), BENCH_SECONDS=60.
// BENCH_GATEWAY_PORT (default 3900; the apps' health ports follow it) when that port is taken.
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const SCHEDULES = Number(process.env.BENCH_SCHEDULES ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const KEY = `bench-${Date.now()}-key-0123456789`;

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'scheduler-service', 'scheduler-service', 'webhook-delivery', 'api-gateway'],
  // BENCH_SCHEDULES agents of one user may be more than QUOTA_AGENTS_PER_USER's default; the runs of that one
  // user's schedules are executed as they were before the limits on executing runs (they do not bind at 1000).
  env: {
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_REQUESTS: '0',
    QUOTA_AGENTS_PER_USER: '0',
    BUILTIN_RUNTIME_STEP_MS: '0',
    RUN_WORKER_CONCURRENCY: '50',
    RUN_CONCURRENCY_PER_USER: '1000',
  },
  gatewayPort: Number(process.env.BENCH_GATEWAY_PORT ?? 3900),
});

async function inParallel(items, limit, task) {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await task(items[next++]);
  }));
}

try {
  process.stderr.write(`  creating and deploying ${SCHEDULES} agents...\n`);
  const agents = [];
  await inParallel(Array.from({ length: SCHEDULES }, (_, i) => i), 20, async (i) => {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { run_mode: 'build' });
    agents.push({ agentId, offset: i % 10 });
  });
  await inParallel(agents, 20, async ({ agentId }) => {
    for (;;) {
      const agent = (await api(system.url, KEY, 'GET', `/v1/agents/${agentId}`)).body.agent;
      if (agent.deployment_state === 'deployed') return;
      await sleep(200);
    }
  });

  process.stderr.write(`  setting ${SCHEDULES} schedules (every 10 s, offsets 0-9 s)...\n`);
  await inParallel(agents, 20, async ({ agentId, offset }) => {
    const res = await api(system.url, KEY, 'PUT', `/v1/agents/${agentId}/schedule`, { cron: `${offset}/10 * * * * ? *`, overlap: 'allow' });
    if (res.status !== 200) throw new Error(`PUT schedule answered ${res.status}: ${JSON.stringify(res.body)}`);
  });

  // Measure whole fire windows that start after every schedule is set.
  const windowStart = Math.ceil(Date.now() / 10_000) * 10_000 + 10_000;
  const windowEnd = windowStart + SECONDS * 1000;
  while (Date.now() < windowEnd + 5_000) {
    process.stderr.write(`\r  firing: ${Math.max(0, Math.ceil((windowEnd + 5_000 - Date.now()) / 1000))} s left   `);
    await sleep(1000);
  }
  process.stderr.write('\n');

  const pg = new Client({ connectionString: system.databaseUrl });
  await pg.connect();
  const { rows } = await pg.query(
    `SELECT schedule_agent_id AS agent_id, (extract(epoch FROM started_at) * 1000)::bigint AS started
       FROM runs.runs WHERE run_kind = 'schedule'`,
  );
  await pg.end();

  const offsetOf = new Map(agents.map((a) => [a.agentId, a.offset]));
  const byFire = new Map();
  for (const row of rows) {
    const started = Number(row.started);
    const offset = offsetOf.get(row.agent_id);
    // The fire this run belongs to: the latest fire time of its schedule at or before its creation.
    const fire = Math.floor((started - offset * 1000) / 10_000) * 10_000 + offset * 1000;
    if (fire < windowStart || fire >= windowEnd) continue;
    const key = `${row.agent_id}@${fire}`;
    byFire.set(key, [...(byFire.get(key) ?? []), started - fire]);
  }
  const expected = agents.length * (SECONDS / 10);
  const lags = [...byFire.values()].map((l) => Math.min(...l)).sort((a, b) => a - b);
  const duplicates = [...byFire.values()].reduce((n, l) => n + l.length - 1, 0);

  console.log('');
  console.log(`bench:schedules (${SCHEDULES} schedules every 10 s, two scheduler processes, ${SECONDS} s window)`);
  console.log(`  fires expected   ${expected}`);
  console.log(`  fires with a run ${byFire.size}`);
  report('schedules', [
    { metric: 'misses (fires without a run)', value: expected - byFire.size, unit: 'fires', target: '0' },
    { metric: 'duplicates (extra runs of a fire)', value: duplicates, unit: 'runs', target: '0' },
    { metric: 'fire lag p50 (fire time to run created)', value: percentile(lags, 50), unit: 'ms' },
    { metric: 'fire lag p99', value: percentile(lags, 99), unit: 'ms', target: '< 250' },
    { metric: 'fire lag max', value: lags[lags.length - 1], unit: 'ms' },
  ]);
} finally {
  await system.stop();
}
