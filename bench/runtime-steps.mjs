// npm run bench:runtime-steps — the agent runtime's own cost per step: runs of BENCH_STEPS model
// calls each (every call but the last asks for one http_request to a local page), against a fake
// model that answers at once, through the whole system (gateway, runs-service, the runtime as its
// own process). Reports the runtime's CPU time per step (a model call with its tool call, their
// lines written) and the run events recorded per second end to end.
//   BENCH_RUNS (default 200), BENCH_STEPS (default 5), BENCH_CONCURRENCY runs started at once (default 20)
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuUsed, processCpu } from './support/cpu.mjs';
import { report } from './support/report.mjs';
import { startFakeModel, startRuntime } from './support/runtime.mjs';
import { api, startSystem } from './support/system.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const STEPS = Number(process.env.BENCH_STEPS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const KEY = `bench-${Date.now()}-key-0123456789`;
const SECRET = 'bench-runtime-secret-0123456789';
const GATEWAY_PORT = 3900;
const RUNTIME_PORT = 3950;

const page = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('a small page'));
await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve));
const pageUrl = `http://127.0.0.1:${page.address().port}/`;
// A tool call until the conversation holds STEPS - 1 tool results, then the final answer.
const model = await startFakeModel((body) =>
  body.messages.filter((m) => m.role === 'tool').length < STEPS - 1
    ? { toolCall: { name: 'http_request', arguments: { method: 'GET', url: pageUrl } } }
    : { text: 'Done.' },
);
const runtime = await startRuntime({
  port: RUNTIME_PORT,
  env: { MODEL_BASE_URL: model.url, MODEL_NAME: 'bench-model', AGENT_RUNTIME_SECRET: SECRET, HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true', AGENT_MAX_STEPS: String(STEPS + 1) },
});
const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'api-gateway', 'scheduler-service', 'webhook-delivery'],
  gatewayPort: GATEWAY_PORT,
  env: {
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_REQUESTS: '0',
    RUN_WORKER_CONCURRENCY: '50',
    RUN_CONCURRENCY_PER_USER: '1000',
    RUN_CONCURRENCY_PER_AGENT: '1000',
  },
  appEnv: { 'runs-service': { AGENT_RUNTIME_URL: runtime.url, AGENT_RUNTIME_SECRET: SECRET } },
});
system.processes.push({ app: 'agent-runtime', pid: runtime.pid });
try {
  const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
  await api(system.url, KEY, 'PUT', `/v1/agents/${agentId}/instructions`, { content: `Read ${pageUrl}, then answer.`, plan_steps: [] });
  const before = processCpu();
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        next += 1;
        const res = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { skip_deploy_check: true, user_message: 'go' });
        if (res.status !== 201) throw new Error(`start answered ${res.status}: ${JSON.stringify(res.body)}`);
      }
    }),
  );
  for (;;) {
    const list = await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs?page_size=1&filter_status=in_progress`);
    process.stderr.write(`\r  runs in progress: ${list.body.total_runs}    `);
    if (list.body.total_runs === 0) break;
    await sleep(200);
  }
  const seconds = (Date.now() - t0) / 1000;
  const used = cpuUsed(before, processCpu(), system);
  let events = 0;
  let completed = 0;
  for (let p = 1; ; p++) {
    const list = await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs?page=${p}&page_size=1000`);
    for (const run of list.body.runs) {
      events += run.event_count;
      completed += run.status === 'completed' ? 1 : 0;
    }
    if (list.body.runs.length < 1000) break;
  }
  const steps = model.stats.answered;
  process.stdout.write(`\nbench:runtime-steps: ${RUNS} runs of ${STEPS} model calls (${STEPS - 1} http_request calls), ${completed} completed, ${steps} model calls, ${events} events in ${seconds.toFixed(1)} s\n`);
  if (used) process.stdout.write(`  CPU seconds: ${Object.entries(used).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}\n`);
  report('runtime-steps', [
    ...(used ? [{ metric: 'agent runtime CPU per step (model call + tool call)', value: Number(((used['agent-runtime'] * 1000) / steps).toFixed(2)), unit: 'ms' }] : []),
    ...(used ? [{ metric: 'runs-service CPU per step', value: Number(((used['runs-service'] * 1000) / steps).toFixed(2)), unit: 'ms' }] : []),
    { metric: 'run events recorded per second (end to end)', value: Number((events / seconds).toFixed(1)), unit: 'events/s' },
    { metric: 'steps per second', value: Number((steps / seconds).toFixed(1)), unit: 'steps/s' },
  ]);
} finally {
  await system.stop();
  await runtime.stop();
  await model.close();
  page.close();
}
