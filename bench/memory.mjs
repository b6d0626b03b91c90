// npm run bench:memory — resident memory (RSS) of every app process: at rest after start-up,
// and the peak while the API, runs and webhook deliveries are under load.
//   BENCH_SECONDS (default 20) of load, BENCH_CONCURRENCY (default 20)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { report } from './support/report.mjs';
import { api, forDuration, startSystem } from './support/system.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const KEY = `bench-${Date.now()}-key-0123456789`;
const RECEIVER_PORT = 3961;

/** Resident set size in MB, from /proc (Linux). */
function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Math.round(Number(line[1]) / 1024) : NaN;
}

const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(204).end());
});
await new Promise((resolve) => receiver.listen(RECEIVER_PORT, '127.0.0.1', resolve));

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery', 'api-gateway'],
  env: { BOOTSTRAP_API_KEY: KEY, RATE_LIMIT_REQUESTS: '0', BUILTIN_RUNTIME_STEP_MS: '0', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
});
try {
  process.stderr.write('  at rest for 10 s...\n');
  await sleep(10_000);
  const atRest = Object.fromEntries(system.processes.map((p) => [p.app, rssMb(p.pid)]));

  const agents = [];
  for (let i = 0; i < 10; i++) {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/webhooks`, {
      url: `http://127.0.0.1:${RECEIVER_PORT}/hook`,
      events: ['run.started', 'run.completed', 'run.failed'],
    });
    agents.push(agentId);
  }
  const peak = { ...atRest };
  const sampler = setInterval(() => {
    for (const p of system.processes) peak[p.app] = Math.max(peak[p.app], rssMb(p.pid));
  }, 250);
  let n = 0;
  await forDuration(SECONDS * 1000, CONCURRENCY, async () => {
    const agentId = agents[n++ % agents.length];
    if (n % 2 === 0) await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { skip_deploy_check: true });
    else await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs?page_size=100`);
  }, (done, left) => process.stderr.write(`\r  under load: ${done} requests, ${Math.ceil(left / 1000)} s left   `));
  await sleep(3000); // deliveries still in flight
  clearInterval(sampler);
  process.stderr.write('\n');

  report(
    'memory',
    system.processes.flatMap((p) => [
      { metric: `${p.app} RSS at rest`, value: atRest[p.app], unit: 'MB', target: '< 150 MB' },
      { metric: `${p.app} RSS peak under load`, value: peak[p.app], unit: 'MB', target: '< 300 MB' },
    ]),
  );
} finally {
  await system.stop();
  receiver.close();
}
