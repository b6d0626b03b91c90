// npm run bench:run-list — GET /v1/agents/{id}/runs with 100,000 runs of one agent, for every
// filter: p50/p99 through the gateway (autocannon, BENCH_CONNECTIONS default 4, BENCH_SECONDS
// default 5 per query). The runs are written straight into runs.runs (an API start per row
// would take an hour). BENCH_RUNS changes the count; BENCH_EXPLAIN=1 prints each query plan.
import { createRequire } from 'node:module';
import { report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const { Client } = require('pg');

const RUNS = Number(process.env.BENCH_RUNS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const KEY = `bench-${Date.now()}-key-0123456789`;

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'api-gateway'],
  env: { BOOTSTRAP_API_KEY: KEY, RATE_LIMIT_REQUESTS: '0' },
});
const pg = new Client({ connectionString: system.databaseUrl });
try {
  await pg.connect();
  const me = (await api(system.url, KEY, 'GET', '/v1/me')).body;
  const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
  // A second agent's runs in the same table, so the agent's own filter has to work too.
  const otherId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
  process.stderr.write(`  writing ${RUNS} runs for one agent (and ${RUNS / 10} for another)...\n`);
  for (const [agent, count] of [[agentId, RUNS], [otherId, RUNS / 10]]) {
    await pg.query(
      `INSERT INTO runs.runs (id, agent_id, user_id, user_email, run_number, run_mode, run_kind, trigger_kind, status,
                              outcome, is_finished, goal, policy_type, started_at, last_event_at, finished_at)
       SELECT gen_random_uuid(), $1, $2, $3, n,
              CASE WHEN n % 10 = 0 THEN 'build' ELSE 'run' END,
              CASE WHEN n % 7 = 0 THEN 'schedule' ELSE 'api' END,
              CASE WHEN n % 7 = 0 THEN 'schedule' ELSE 'api' END,
              s.status, CASE WHEN s.status = 'completed' THEN 'success' END, s.status IN ('completed', 'error', 'stopped'),
              'goal ' || n || ' about ' || (ARRAY['deploys', 'backups', 'reports', 'syncing'])[n % 4 + 1],
              CASE WHEN n % 10 = 0 THEN 'builder' ELSE 'runner' END,
              now() - n * interval '1 minute', now() - n * interval '1 minute',
              CASE WHEN s.status IN ('completed', 'error', 'stopped') THEN now() - n * interval '1 minute' END
         FROM generate_series(1, $4::int) AS n,
              LATERAL (SELECT (ARRAY['completed', 'completed', 'completed', 'error', 'stopped', 'in_progress', 'paused'])[n % 7 + 1] AS status) s`,
      [agent, me.user_id, me.email, count],
    );
  }
  await pg.query('ANALYZE runs.runs');

  const day = (d) => new Date(Date.now() - d * 86_400_000).toISOString();
  const queries = {
    'no filter, first page': '',
    'page 100 of 50': '?page=100',
    'page size 1000': '?page_size=1000',
    'filter_status=completed': '?filter_status=completed',
    'filter_status=finished': '?filter_status=finished',
    'filter_status=paused': '?filter_status=paused',
    'filter_policy_group=builder': '?filter_policy_group=builder',
    'filter_policy_type=runner': '?filter_policy_type=runner',
    'filter_started_after/before (one day)': `?filter_started_after=${day(30)}&filter_started_before=${day(29)}`,
    'filter_goal=backups': '?filter_goal=backups',
    'filter_user_email': `?filter_user_email=${encodeURIComponent(me.email)}`,
    'filter_run_id': `?filter_run_id=${(await pg.query('SELECT id FROM runs.runs WHERE agent_id = $1 LIMIT 1', [agentId])).rows[0].id}`,
  };
  const figures = [];
  let worst = 0;
  for (const [title, query] of Object.entries(queries)) {
    process.stderr.write(`  ${title}...\n`);
    const result = await autocannon({
      url: `${system.url}/v1/agents/${agentId}/runs${query}`,
      headers: { 'x-api-key': KEY },
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    if (result.non2xx + result.errors > 0) throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    worst = Math.max(worst, result.latency.p99);
    figures.push({ metric: `run list ${title}: p50 / p99`, value: `${result.latency.p50} / ${result.latency.p99}`, unit: 'ms' });
  }
  figures.push({ metric: `run list, ${RUNS} runs: worst p99 of any filter`, value: worst, unit: 'ms', target: '< 50 ms' });
  report('run-list', figures);
} finally {
  await pg.end();
  await system.stop();
}
