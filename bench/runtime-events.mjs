// npm run bench:runtime-events — events at the rate agents write them (#31 item 3): runs whose
// runtime, a scripted one over the protocol's HTTP (docs/runtime-protocol.md) that the benchmark
// serves, writes BENCH_EVENTS_PER_RUN events per run (with event 0, `started`: steps, tool calls and
// results, a title, a message, `completed`) as fast as runs-service reads them, BENCH_CONCURRENCY runs
// at once, BENCH_RUNS in all, all apps as separate processes. Each run has a live stream open, as the
// console would (SSE, `events/stream`): the runtime writes a run's lines only once its stream is
// open, so every event after `started` is pushed live. Reports events recorded per second, CPU per
// event of every process (PostgreSQL included) and events per CPU-second, event recorded (its
// `recorded_at`) to read by the stream's client p50/p99, and checks that every stream received every
// event once and in order and that every run's run.started and run.completed webhooks arrived.
//   BENCH_RUNS (default 100), BENCH_EVENTS_PER_RUN (default 100), BENCH_CONCURRENCY (default 20),
//   BENCH_PG_SAMPLE=1: samples pg_stat_activity every 100 ms meanwhile and prints what the backends were doing
import { createParser } from 'eventsource-parser';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuUsed, processCpu } from './support/cpu.mjs';
import { sampleActivity } from './support/pg-activity.mjs';
import { percentile, report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const EVENTS_PER_RUN = Number(process.env.BENCH_EVENTS_PER_RUN ?? 100);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const AGENTS = 5;
const KEY = `bench-${Date.now()}-key-0123456789`;
const RUNTIME_PORT = 3971;
const RECEIVER_PORT = 3972;
const WEBHOOK_WAIT_MS = 30_000;

/** The runtime's lines for one run: EVENTS_PER_RUN - 1 of them (event 0 is runs-service's `started`). */
function linesOfRun() {
  const lines = [{ type: 'title', title: 'Benchmark run' }];
  for (let i = 0; lines.length < EVENTS_PER_RUN - 3; i++) {
    const kind = i % 3;
    if (kind === 0) lines.push({ type: 'step', title: `step ${i / 3}` });
    if (kind === 1) lines.push({ type: 'tool_call', call_id: `call_${i}`, tool: 'http_request', input: { method: 'GET', url: 'http://127.0.0.1/page' } });
    if (kind === 2) lines.push({ type: 'tool_result', call_id: `call_${i - 1}`, tool: 'http_request', output: 'a small page', truncated: false, is_error: false });
  }
  lines.push({ type: 'message', text: 'Done.' }, { type: 'completed', outcome: 'success', summary: 'Benchmark run done' });
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}
const RUN_LINES = linesOfRun();

// Dispatches wait here, by run id, until the benchmark has that run's stream open.
const streamsOpen = new Map();
const whenStreamOpen = (runId) => {
  if (!streamsOpen.has(runId)) {
    let open;
    streamsOpen.set(runId, { promise: new Promise((resolve) => (open = resolve)), open });
  }
  return streamsOpen.get(runId);
};
const runtime = createServer((req, res) => {
  // No tool catalogue (GET /tools answers 404): the tool calls carry no icon.
  if (req.method !== 'POST') return void res.writeHead(404).end();
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', async () => {
    await whenStreamOpen(JSON.parse(body).run_id).promise;
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.end(RUN_LINES);
  });
});
const webhooks = new Map();
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const { event, data } = JSON.parse(body);
    const key = `${data.run_id} ${event}`;
    webhooks.set(key, (webhooks.get(key) ?? 0) + 1);
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => runtime.listen(RUNTIME_PORT, '127.0.0.1', resolve));
await new Promise((resolve) => receiver.listen(RECEIVER_PORT, '127.0.0.1', resolve));

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'api-gateway', 'scheduler-service', 'webhook-delivery'],
  env: {
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_REQUESTS: '0',
    RUN_WORKER_CONCURRENCY: '50',
    RUN_CONCURRENCY_PER_USER: '1000',
    RUN_CONCURRENCY_PER_AGENT: '1000',
    STREAMS_PER_USER: String(CONCURRENCY * 2),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    AGENT_RUNTIME_URL: `http://127.0.0.1:${RUNTIME_PORT}/run`,
  },
});

/** Reads a run's stream until `end`: each event's index, arrival and recorded_at, in the order received. */
async function followStream(agentId, runId, onOpen) {
  const res = await fetch(`${system.url}/v1/agents/${agentId}/runs/${runId}/events/stream`, { headers: { 'x-api-key': KEY } });
  if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
  onOpen();
  const received = [];
  let ended = false;
  const parser = createParser({
    onEvent: (event) => {
      if (event.event === 'end') ended = true;
      if (event.event !== 'run_event') return;
      const item = JSON.parse(event.data);
      received.push({ index: item.event_index, at: Date.now(), recordedAt: Date.parse(item.recorded_at), type: Object.keys(item.event)[0] });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (ended) break;
  }
  return { received, ended };
}

/** What is wrong with one stream's events: a gap, a repeat, the wrong order, no end, not completed. */
function streamFault({ received, ended }) {
  if (!ended) return 'no end';
  if (received.length !== EVENTS_PER_RUN) return `${received.length} events`;
  if (received.some((e, i) => e.index !== i)) return 'out of order';
  return received.at(-1).type === 'completed' ? undefined : `last event ${received.at(-1).type}`;
}

try {
  const agents = [];
  for (let i = 0; i < AGENTS; i++) {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    const hook = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/webhooks`, { url: `http://127.0.0.1:${RECEIVER_PORT}/hook`, events: ['run.started', 'run.completed'] });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    agents.push(agentId);
  }
  const streams = [];
  const activity = process.env.BENCH_PG_SAMPLE === '1' ? await sampleActivity(system.databaseUrl) : undefined;
  if (activity) activity.active = true;
  const before = processCpu();
  const t0 = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < RUNS) {
        const agentId = agents[next++ % AGENTS];
        const res = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { skip_deploy_check: true });
        if (res.status !== 201) throw new Error(`start answered ${res.status}: ${JSON.stringify(res.body)}`);
        const runId = res.body.run.run_id;
        streams.push({ runId, ...(await followStream(agentId, runId, () => whenStreamOpen(runId).open())) });
        process.stderr.write(`\r  runs streamed to their end: ${streams.length}/${RUNS}   `);
      }
    }),
  );
  const seconds = (Date.now() - t0) / 1000;
  const used = cpuUsed(before, processCpu(), system);
  const backends = await activity?.stop();
  process.stderr.write('\n  waiting for the webhooks...\n');
  const hooksDone = () => streams.every((s) => webhooks.has(`${s.runId} run.started`) && webhooks.has(`${s.runId} run.completed`));
  for (const until = Date.now() + WEBHOOK_WAIT_MS; !hooksDone() && Date.now() < until; ) await sleep(200);

  const events = streams.reduce((sum, s) => sum + s.received.length, 0);
  const faults = streams.map(streamFault).filter(Boolean);
  // Event 0 is recorded before the dispatch, so before its stream opened: only the later ones are live.
  const latencies = streams.flatMap((s) => s.received.slice(1).map((e) => e.at - e.recordedAt)).sort((a, b) => a - b);
  const missingHooks = streams.flatMap((s) => ['run.started', 'run.completed'].filter((e) => !webhooks.has(`${s.runId} ${e}`))).length;
  const repeatedHooks = [...webhooks.values()].filter((n) => n > 1).length;
  const parts = [...new Set(system.processes.map((p) => p.app)), 'postgres', 'redis'];
  const cpuSeconds = used ? parts.reduce((sum, part) => sum + used[part], 0) : NaN;
  process.stdout.write(`\nbench:runtime-events: ${RUNS} runs of ${EVENTS_PER_RUN} events, ${CONCURRENCY} at once, ${events} events streamed in ${seconds.toFixed(1)} s\n`);
  if (used) process.stdout.write(`  CPU seconds: ${Object.entries(used).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}\n`);
  if (faults.length > 0) process.stdout.write(`  streams with faults: ${faults.length} (${[...new Set(faults)].slice(0, 5).join('; ')})\n`);
  report('runtime-events', [
    { metric: 'events recorded per second', value: Math.round(events / seconds), unit: 'events/s', target: '>= 2,000' },
    ...(used ? parts.map((part) => ({ metric: `CPU per event, ${part}`, value: Number(((used[part] * 1e6) / events).toFixed(0)), unit: 'µs' })) : []),
    { metric: 'events per CPU-second (all the service, PostgreSQL included)', value: Math.round(events / cpuSeconds), unit: 'events/s' },
    { metric: 'event recorded -> on the stream p50', value: percentile(latencies, 50), unit: 'ms', target: '< 50 ms' },
    { metric: 'event recorded -> on the stream p99', value: percentile(latencies, 99), unit: 'ms' },
    { metric: 'streams with every event once, in order, then end', value: `${streams.length - faults.length}/${streams.length}`, unit: '' },
    { metric: 'run.started and run.completed webhooks missing', value: missingHooks, unit: '', target: '0' },
    { metric: 'webhook events delivered more than once', value: repeatedHooks, unit: '' },
  ]);
  if (backends) {
    process.stdout.write('\nPostgreSQL backends not idle, average per sample (state, wait event, statement)\n');
    for (const { backends: n, key } of backends.slice(0, 15)) process.stdout.write(`  ${n.toFixed(2).padStart(6)}  ${key}\n`);
  }
} finally {
  await system.stop();
  runtime.closeAllConnections();
  runtime.close();
  receiver.close();
}
