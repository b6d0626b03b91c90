// npm run bench:streams — live run event streams: what 1,000 idle streams cost (CPU of the gateway,
// every service, PostgreSQL and Redis, as a share of one core: the same system measured for as long
// without streams, then with them, and the difference), and how soon an event recorded reaches
// a stream (p50/p99). All apps as separate processes. Runs stay idle: one runs-service worker slot,
// whose run takes a minute, so every other run waits in the queue; the events for the latency are
// recorded by cancelling runs (`stopped`).
//   BENCH_STREAMS (default 1000), BENCH_SECONDS idle measurement (default 30), BENCH_EVENTS (default 200)
import { createParser } from 'eventsource-parser';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuUsed, processCpu } from './support/cpu.mjs';
import { percentile, report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const EVENTS = Math.min(Number(process.env.BENCH_EVENTS ?? 200), STREAMS);
const KEY = `bench-${Date.now()}-key-0123456789`;
const RUNS_PER_AGENT = 50;

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'scheduler-service', 'webhook-delivery', 'api-gateway'],
  env: {
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_REQUESTS: '0',
    STREAMS_PER_USER: '0',
    BUILTIN_RUNTIME_STEP_MS: '60000',
    RUN_WORKER_CONCURRENCY: '1',
  },
});

/** An open stream: when each event index arrived (performance.now()), and its recorded_at. */
function openStream(path) {
  const abort = new AbortController();
  const arrivals = new Map();
  const opened = fetch(system.url + path, { headers: { 'x-api-key': KEY }, signal: abort.signal }).then(async (res) => {
    if (res.status !== 200) throw new Error(`stream answered ${res.status}`);
    const parser = createParser({
      onEvent: (event) => {
        if (event.event !== 'run_event') return;
        const item = JSON.parse(event.data);
        arrivals.set(item.event_index, { at: Date.now(), recordedAt: Date.parse(item.recorded_at), event: item.event });
      },
    });
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(decoder.decode(value, { stream: true }));
        }
      } catch {
        // closed by the benchmark
      }
    })();
  });
  return { opened, arrivals, close: () => abort.abort() };
}

/** CPU of each part of the system over SECONDS, as a share of one core (%), with their total. */
async function measureIdle() {
  const before = processCpu();
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const elapsed = (performance.now() - t0) / 1000;
  const cpu = cpuUsed(before, processCpu(), system) ?? {};
  const parts = [...new Set(system.processes.map((p) => p.app)), 'postgres', 'redis'];
  const share = Object.fromEntries(parts.map((part) => [part, ((cpu[part] ?? NaN) / elapsed) * 100]));
  share.total = parts.reduce((sum, part) => sum + share[part], 0);
  for (const part of Object.keys(share)) share[part] = Math.round(share[part] * 10) / 10;
  return { share, unrelated: Math.round(((cpu.unrelated ?? NaN) / elapsed) * 1000) / 10 };
}

try {
  const runs = [];
  for (let a = 0; a * RUNS_PER_AGENT < STREAMS; a++) {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    const started = await Promise.all(
      Array.from({ length: Math.min(RUNS_PER_AGENT, STREAMS - a * RUNS_PER_AGENT) }, () =>
        api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { skip_deploy_check: true }),
      ),
    );
    for (const res of started) {
      if (res.status !== 201) throw new Error(`start answered ${res.status}`);
      runs.push({ agentId, runId: res.body.run.run_id });
    }
    process.stderr.write(`\r  runs started ${runs.length}/${STREAMS}   `);
  }
  // The system's own idle work (outbox relays, schedulers, queue workers, health), without streams.
  await sleep(5000);
  process.stderr.write(`\n  idle for ${SECONDS} s without streams\n`);
  const baseline = await measureIdle();
  const streams = [];
  for (let i = 0; i < runs.length; i += 100) {
    const batch = runs.slice(i, i + 100).map((r) => openStream(`/v1/agents/${r.agentId}/runs/${r.runId}/events/stream`));
    await Promise.all(batch.map((s) => s.opened));
    streams.push(...batch);
    process.stderr.write(`\r  streams open ${streams.length}/${runs.length}   `);
  }
  await sleep(5000);
  process.stderr.write(`\n  idle for ${SECONDS} s with ${streams.length} streams open\n`);
  const withStreams = await measureIdle();

  // Latency: one event per stream, recorded by a cancel, 20 a second.
  const cancels = [];
  for (let i = 0; i < EVENTS; i++) {
    const { agentId, runId } = runs[i];
    // A run that had finished by itself (the one that executed) records nothing: `error` says so.
    cancels.push(api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs/${runId}/cancel`, {}).then((res) => res.status === 200 && res.body.error === null, () => false));
    await sleep(50);
  }
  const recorded = await Promise.all(cancels);
  const refused = recorded.filter((ok) => !ok).length;
  const stopped = (s) => [...s.arrivals.values()].find((e) => 'stopped' in e.event);
  for (let waited = 0; waited < 20_000 && streams.slice(0, EVENTS).some((s, i) => recorded[i] && !stopped(s)); waited += 200) await sleep(200);
  const latencies = streams
    .slice(0, EVENTS)
    .filter((_, i) => recorded[i])
    .map(stopped)
    .filter(Boolean)
    .map((e) => e.at - e.recordedAt)
    .sort((x, y) => x - y);
  for (const s of streams) s.close();

  const parts = Object.keys(withStreams.share);
  const cost = (part) => Math.round((withStreams.share[part] - baseline.share[part]) * 10) / 10;
  report('streams', [
    { metric: `${streams.length} idle streams: CPU they add (gateway, services, PostgreSQL, Redis)`, value: cost('total'), unit: '% of one core', target: '< 5 %' },
    ...parts.filter((p) => p !== 'total').map((part) => ({ metric: `  of which ${part}`, value: cost(part), unit: '% of one core' })),
    { metric: 'the same system idle without streams', value: baseline.share.total, unit: '% of one core' },
    { metric: `the same system idle with ${streams.length} streams`, value: withStreams.share.total, unit: '% of one core' },
    { metric: '  (not ours, without / with: other processes on the machine)', value: `${baseline.unrelated} / ${withStreams.unrelated}`, unit: '% of one core' },
    { metric: 'event recorded -> on the stream p50', value: percentile(latencies, 50), unit: 'ms', target: '< 20 ms' },
    { metric: 'event recorded -> on the stream p99', value: percentile(latencies, 99), unit: 'ms' },
    { metric: 'events received / events recorded', value: `${latencies.length}/${EVENTS - refused}`, unit: '' },
    ...(refused > 0 ? [{ metric: 'cancels that recorded nothing (run already finished, or failed)', value: refused, unit: '' }] : []),
  ]);
} finally {
  await system.stop();
}
