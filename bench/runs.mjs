// npm run bench:runs — runs started per second and run events recorded per second
// with the built-in runtime (no step delay), all apps as separate processes. It measures the
// acceptance and execution machinery for one user, so the limits on runs executing at once
// (RUN_CONCURRENCY_PER_USER, RUN_CONCURRENCY_PER_AGENT; see bench:fairness-runs) are raised to
// 1000 to keep them from binding; every run still goes through admission.
//   BENCH_SECONDS (default 20), BENCH_CONCURRENCY (default 20), BENCH_PLAN_STEPS (default 5)
import { setTimeout as sleep } from 'node:timers/promises';
import { report } from './support/report.mjs';
import { api, forDuration, startSystem } from './support/system.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const PLAN_STEPS = Number(process.env.BENCH_PLAN_STEPS ?? 5);
const KEY = `bench-${Date.now()}-key-0123456789`;
const UNBINDING_LIMIT = 1000;

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'api-gateway', 'scheduler-service', 'webhook-delivery'],
  env: {
    BOOTSTRAP_API_KEY: KEY,
    BUILTIN_RUNTIME_STEP_MS: '0',
    RUN_WORKER_CONCURRENCY: '50',
    RUN_CONCURRENCY_PER_USER: String(UNBINDING_LIMIT),
    RUN_CONCURRENCY_PER_AGENT: String(UNBINDING_LIMIT),
    RATE_LIMIT_REQUESTS: '0',
  },
});
try {
  const agents = [];
  for (let i = 0; i < 10; i++) {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    const plan_steps = Array.from({ length: PLAN_STEPS }, (_, order) => ({ title: `step ${order}`, description: '', tools: [], order }));
    await api(system.url, KEY, 'PUT', `/v1/agents/${agentId}/instructions`, { content: 'bench', plan_steps });
    agents.push(agentId);
  }
  let n = 0;
  const started = [];
  const t0 = Date.now();
  const count = await forDuration(
    SECONDS * 1000,
    CONCURRENCY,
    async () => {
      const agentId = agents[n++ % agents.length];
      const res = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { skip_deploy_check: true });
      if (res.status !== 201) throw new Error(`start answered ${res.status}: ${JSON.stringify(res.body)}`);
      started.push([agentId, res.body.run.run_id]);
    },
    (done, left) => process.stderr.write(`\r  starting runs: ${done} started, ${Math.ceil(left / 1000)} s left   `),
  );
  const startSeconds = (Date.now() - t0) / 1000;
  process.stderr.write('\n  waiting for every run to finish...\n');

  let finished = 0;
  let events = 0;
  for (const [agentId] of agents.map((a) => [a])) {
    for (;;) {
      const list = await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs?page_size=1000&filter_status=in_progress`);
      if (list.body.total_runs === 0) break;
      await sleep(250);
    }
  }
  const allSeconds = (Date.now() - t0) / 1000;
  for (const agentId of agents) {
    for (let page = 1; ; page++) {
      const list = await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs?page=${page}&page_size=1000`);
      for (const run of list.body.runs) {
        finished += run.is_finished ? 1 : 0;
        events += run.event_count;
      }
      if (list.body.runs.length < 1000) break;
    }
  }
  process.stdout.write(`\nbench:runs: ${count} runs started in ${startSeconds.toFixed(1)} s at concurrency ${CONCURRENCY}, ${finished} finished, ${events} events (${PLAN_STEPS + 2} per run) in ${allSeconds.toFixed(1)} s\n`);
  process.stdout.write(`  (RUN_CONCURRENCY_PER_USER and RUN_CONCURRENCY_PER_AGENT set to ${UNBINDING_LIMIT}: the limits do not bind; admission still runs for every run)\n`);
  report('runs', [
    { metric: 'runs started per second (API)', value: Number((count / startSeconds).toFixed(1)), unit: 'runs/s' },
    { metric: 'runs completed per second (built-in runtime)', value: Number((finished / allSeconds).toFixed(1)), unit: 'runs/s' },
    { metric: 'run events recorded per second', value: Number((events / allSeconds).toFixed(1)), unit: 'events/s' },
  ]);
} finally {
  await system.stop();
}
