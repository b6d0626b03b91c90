// npm run bench:runtime-capacity — BENCH_RUNS (1,000) runs executing at once on ONE runs-service
// process and ONE agent runtime process, against a fake model that answers each call after
// BENCH_MODEL_DELAY_MS (10 s) once every run is waiting on it: RUN_WORKER_CONCURRENCY and the
// per-user and per-agent limits at 1,000.
// Reports the most resident memory of runs-service and of the runtime while the runs wait, the CPU
// both use together while every run waits on the model (the BENCH_MODEL_DELAY_MS from the moment
// the model holds all of them to its first answer), and start-to-first-event latency: from POST /runs answered (the run
// accepted) to the recorded_at of the run's first event from the runtime (its title), p50/p99,
// besides how long the POST itself took with BENCH_CONCURRENCY of them at once.
//   BENCH_RUNS (default 1000), BENCH_MODEL_DELAY_MS (default 10000), BENCH_AGENTS the runs are spread over (default 1), BENCH_CONCURRENCY starts at once (default 4, as
// RUN_ACCEPTANCE_POOL_SIZE: one user's starts take its admission lock one at a time, more only queue)
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuUsed, processCpu } from './support/cpu.mjs';
import { percentile, report } from './support/report.mjs';
import { rssMb, startFakeModel, startRuntime } from './support/runtime.mjs';
import { api, startSystem } from './support/system.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
const DELAY_MS = Number(process.env.BENCH_MODEL_DELAY_MS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 1);
const KEY = `bench-${Date.now()}-key-0123456789`;
const SECRET = 'bench-runtime-secret-0123456789';

const model = await startFakeModel(() => ({ text: 'Done after a while.' }), DELAY_MS, { held: true });
const runtime = await startRuntime({ port: 3950, env: { MODEL_BASE_URL: model.url, MODEL_NAME: 'bench-model', AGENT_RUNTIME_SECRET: SECRET } });
const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'api-gateway', 'scheduler-service', 'webhook-delivery'],
  env: {
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_REQUESTS: '0',
    RUN_WORKER_CONCURRENCY: '1000',
    RUN_CONCURRENCY_PER_USER: '1000',
    RUN_CONCURRENCY_PER_AGENT: '1000',
    QUOTA_WAITING_RUNS_PER_USER: String(Math.max(1000, RUNS)),
  },
  appEnv: { 'runs-service': { AGENT_RUNTIME_URL: runtime.url, AGENT_RUNTIME_SECRET: SECRET } },
});
system.processes.push({ app: 'agent-runtime', pid: runtime.pid });
const runsPid = system.processes.find((p) => p.app === 'runs-service').pid;
const memory = { runs: rssMb(runsPid), runtime: rssMb(runtime.pid) };
const sampler = setInterval(() => {
  memory.runs = Math.max(memory.runs, rssMb(runsPid));
  memory.runtime = Math.max(memory.runtime, rssMb(runtime.pid));
}, 250);
try {
  const idle = { runs: rssMb(runsPid), runtime: rssMb(runtime.pid) };
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    await api(system.url, KEY, 'PUT', `/v1/agents/${agentId}/instructions`, { content: 'Answer when you can.', plan_steps: [] });
    agents.push(agentId);
  }
  const sentAt = new Map();
  let next = 0;
  let unavailable = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        next += 1;
        const agentId = agents[next % AGENTS];
        const sent = Date.now();
        let res = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { skip_deploy_check: true, user_message: 'go' });
        // A 503 says retry shortly: counted and retried, as a client would.
        for (let attempt = 0; res.status === 503 && attempt < 5; attempt++) {
          if (unavailable++ === 0) process.stderr.write(`\n  first 503: ${JSON.stringify(res.body)}\n`);
          await sleep(500);
          res = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { skip_deploy_check: true, user_message: 'go' });
        }
        if (res.status !== 201) throw new Error(`start answered ${res.status}: ${JSON.stringify(res.body)}`);
        sentAt.set(res.body.run.run_id, { agentId, sent, answered: Date.now() });
      }
    }),
  );
  const startSeconds = (Date.now() - t0) / 1000;
  // The model holds every call until all runs wait on it, then answers each BENCH_MODEL_DELAY_MS later:
  // CPU is measured over that wait.
  const until = Date.now() + 60_000;
  while (model.stats.inFlight < RUNS && Date.now() < until) await sleep(20);
  const allWaiting = model.stats.inFlight >= RUNS;
  const waitingRuns = model.stats.inFlight;
  model.release();
  const allWaitingAt = Date.now();
  const before = processCpu();
  while (model.stats.answered === 0) await sleep(20);
  const waitSeconds = (Date.now() - allWaitingAt) / 1000;
  const used = cpuUsed(before, processCpu(), system);
  const waitingMemory = { runs: rssMb(runsPid), runtime: rssMb(runtime.pid) };
  for (const agentId of agents) {
    for (;;) {
      const list = await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs?page_size=1&filter_status=in_progress`);
      if (list.body?.total_runs === 0) break;
      await sleep(500);
    }
  }
  clearInterval(sampler);
  const latencies = [];
  const startLatencies = [];
  const notCompleted = new Map();
  let completed = 0;
  for (const [runId, { agentId, sent, answered }] of sentAt) {
    startLatencies.push(answered - sent);
    const run = (await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs/${runId}`)).body.run;
    completed += run.status === 'completed' ? 1 : 0;
    const events = (await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs/${runId}/events`)).body.events;
    if (run.status !== 'completed') {
      const reason = `${run.status}: ${JSON.stringify(events.at(-1)?.event).slice(0, 300)}`;
      notCompleted.set(reason, (notCompleted.get(reason) ?? 0) + 1);
    }
    const first = events.find((e) => 'title' in e.event);
    if (first) latencies.push(Date.parse(first.recorded_at) - answered);
  }
  latencies.sort((a, b) => a - b);
  startLatencies.sort((a, b) => a - b);
  const cpuBoth = used ? (used['runs-service'] + used['agent-runtime']) / waitSeconds : undefined;
  process.stdout.write(
    `\nbench:runtime-capacity: ${RUNS} runs started in ${startSeconds.toFixed(1)} s, ${allWaiting ? 'all' : `only ${waitingRuns}`} waiting on the model at once, ` +
      `${completed} completed; model answers after ${DELAY_MS} ms; CPU measured over ${waitSeconds.toFixed(1)} s of waiting\n`,
  );
  for (const [reason, count] of notCompleted) process.stdout.write(`  not completed, ${count} run(s): ${reason}\n`);
  process.stdout.write(`  RSS idle: runs-service ${idle.runs.toFixed(0)} MB, runtime ${idle.runtime.toFixed(0)} MB; while waiting: ${waitingMemory.runs.toFixed(0)} MB, ${waitingMemory.runtime.toFixed(0)} MB\n`);
  if (used) process.stdout.write(`  CPU seconds while waiting: ${Object.entries(used).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}\n`);
  report('runtime-capacity', [
    { metric: `runs executing at once (of ${RUNS})`, value: waitingRuns, unit: 'runs' },
    { metric: 'runs completed', value: completed, unit: 'runs' },
    { metric: 'runs-service RSS, most seen', value: Math.round(memory.runs), unit: 'MB', target: '< 300' },
    { metric: 'agent runtime RSS, most seen', value: Math.round(memory.runtime), unit: 'MB', target: '< 400' },
    ...(cpuBoth === undefined ? [] : [{ metric: 'runs-service + runtime CPU while the runs wait', value: Number(cpuBoth.toFixed(3)), unit: 'cores', target: '< 0.5' }]),
    { metric: 'starts answered 503 (retried)', value: unavailable, unit: 'starts' },
    { metric: `POST /runs answered (${CONCURRENCY} at once), p99`, value: percentile(startLatencies, 99), unit: 'ms' },
    { metric: 'run accepted to first runtime event, p50', value: percentile(latencies, 50), unit: 'ms' },
    { metric: 'run accepted to first runtime event, p99', value: percentile(latencies, 99), unit: 'ms', target: '< 1000' },
  ]);
} finally {
  clearInterval(sampler);
  await system.stop();
  await runtime.stop();
  await model.close();
}
