// npm run bench:run-latency — from POST /v1/agents/{id}/runs sent to its run.started webhook
// received, p50/p99, with the built-in runtime and all apps as separate processes. The limits on
// runs executing at once keep their defaults: each run is admitted in the transaction that accepts
// it while its user has fewer than 10 executing, which holds as long as a run lasts under a second
// (10 starts per second); the benchmark reports the most runs it saw waiting for admission, which
// is 0 unless the machine was too slow for that.
//   BENCH_SECONDS (default 20), BENCH_RATE runs started per second (default 10)
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const RATE = Number(process.env.BENCH_RATE ?? 10);
const KEY = `bench-${Date.now()}-key-0123456789`;
const RECEIVER_PORT = 3960;

const sentAt = new Map();
const receivedAt = new Map();
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    // The webhook may arrive before the start call has returned: matched by run id afterwards.
    receivedAt.set(JSON.parse(body).data?.run_id, performance.now());
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(RECEIVER_PORT, '127.0.0.1', resolve));

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery', 'api-gateway'],
  env: { BOOTSTRAP_API_KEY: KEY, RATE_LIMIT_REQUESTS: '0', BUILTIN_RUNTIME_STEP_MS: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
});
const db = new Client({ connectionString: system.databaseUrl, options: '-c search_path=runs' });
let sampling = true;
try {
  // Runs waiting for admission (accepted over a limit), sampled every 50 ms.
  await db.connect();
  let maxWaiting = 0;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await db.query('SELECT count(*)::int AS n FROM runs WHERE admitted_at IS NULL AND NOT is_finished');
      maxWaiting = Math.max(maxWaiting, rows[0].n);
      await sleep(50);
    }
  })();
  const agents = [];
  for (let i = 0; i < 10; i++) {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    const hook = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/webhooks`, {
      url: `http://127.0.0.1:${RECEIVER_PORT}/hook`,
      events: ['run.started'],
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    agents.push(agentId);
  }
  const total = SECONDS * RATE;
  const t0 = performance.now();
  const starts = [];
  for (let n = 0; n < total; n++) {
    const due = t0 + (n * 1000) / RATE;
    await sleep(Math.max(0, due - performance.now()));
    const sent = performance.now();
    starts.push(
      api(system.url, KEY, 'POST', `/v1/agents/${agents[n % agents.length]}/runs`, { skip_deploy_check: true }).then((res) => {
        if (res.status !== 201) throw new Error(`start answered ${res.status}`);
        sentAt.set(res.body.run.run_id, sent);
      }),
    );
    if (n % RATE === 0) process.stderr.write(`\r  started ${n}/${total}, run.started received ${receivedAt.size}   `);
  }
  await Promise.all(starts);
  for (let waited = 0; receivedAt.size < total && waited < 30_000; waited += 200) await sleep(200);
  process.stderr.write('\n');
  sampling = false;
  await sampler;
  const latencies = [...sentAt].filter(([runId]) => receivedAt.has(runId)).map(([runId, sent]) => receivedAt.get(runId) - sent);
  const sorted = latencies.sort((a, b) => a - b);
  report('run-latency', [
    { metric: 'run start -> run.started webhook received p50', value: Math.round(percentile(sorted, 50)), unit: 'ms', target: '< 50 ms' },
    { metric: 'run start -> run.started webhook received p99', value: Math.round(percentile(sorted, 99)), unit: 'ms' },
    { metric: 'run.started webhooks received / runs started', value: `${latencies.length}/${total}`, unit: '' },
    { metric: 'runs waiting for admission at once, max (0: no limit bound)', value: maxWaiting, unit: 'runs' },
  ]);
} finally {
  sampling = false;
  await db.end().catch(() => undefined);
  await system.stop();
  receiver.close();
}
