// npm run bench:slow-bodies — 8,000 connections from one address (127.0.0.1), each sending a
// body to /hooks/… one byte a second, while another address (127.0.0.2) calls the API. The
// gateway runs with its default edge settings: each slow body is closed at
// HTTP_REQUEST_TIMEOUT_MS (408) or refused at once over HTTP_CONNECTIONS_PER_ADDRESS; its
// memory and open files stay bounded, and the other address keeps its p99.
//   BENCH_CONNECTIONS (default 8000), BENCH_VICTIM_SECONDS (default 5) of baseline
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile, report } from './support/report.mjs';
import { startSystem } from './support/system.mjs';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8000);
const VICTIM_SECONDS = Number(process.env.BENCH_VICTIM_SECONDS ?? 5);
const REQUEST_TIMEOUT_MS = 30_000; // the gateway's default HTTP_REQUEST_TIMEOUT_MS
const CAP = 256; // the gateway's default HTTP_CONNECTIONS_PER_ADDRESS
const CONNECTS_AT_ONCE = 200; // the listen backlog is 511: more SYNs at once would be retried seconds later
const KEY = `bench-${Date.now()}-slow-bodies-key-0123456789`;
const ATTACKER = '127.0.0.1';
const OTHER_ADDRESS = '127.0.0.2';

ensureFileLimit(CONNECTIONS + 1024);

const system = await startSystem({ apps: ['agents-service', 'api-gateway'], env: { BOOTSTRAP_API_KEY: KEY, RATE_LIMIT_REQUESTS: '0' } });
const gateway = system.processes.find((p) => p.app === 'api-gateway');
const port = Number(new URL(system.url).port);
const otherAgent = new Agent({ keepAlive: true, localAddress: OTHER_ADDRESS });

try {
  await victimCalls(1000); // warm: the key verified and cached, connections open
  const baseline = await victimCalls(VICTIM_SECONDS * 1000);
  const atRest = { rss: rssMb(gateway.pid), files: openFiles(gateway.pid) };

  const peak = { ...atRest };
  const sampler = setInterval(() => {
    peak.rss = Math.max(peak.rss, rssMb(gateway.pid));
    peak.files = Math.max(peak.files, openFiles(gateway.pid));
  }, 250);
  const started = Date.now();
  const attack = slowBodies();
  const underAttack = await victimCalls(REQUEST_TIMEOUT_MS - 5_000);
  const outcome = await attack;
  clearInterval(sampler);
  process.stderr.write('\n');

  const refused = outcome.filter((c) => c.received === '');
  const timedOut = outcome.filter((c) => c.received.startsWith('HTTP/1.1 408 '));
  const longestMs = Math.max(...outcome.map((c) => c.closedAfterMs));
  report('slow-bodies', [
    { metric: 'slow-body connections from one address', value: outcome.length, unit: '' },
    { metric: 'refused at once (over the per-address cap)', value: refused.length, unit: '', target: `${CONNECTIONS - CAP}` },
    { metric: 'closed with a 408 at the request timeout', value: timedOut.length, unit: '', target: `${CAP}` },
    { metric: 'longest held', value: longestMs, unit: 'ms', target: `<= ${REQUEST_TIMEOUT_MS + 1000} ms` },
    { metric: 'refused connection, longest to close', value: Math.max(0, ...refused.map((c) => c.closedAfterMs)), unit: 'ms' },
    { metric: 'all closed after', value: Date.now() - started, unit: 'ms' },
    { metric: 'gateway RSS at rest', value: atRest.rss, unit: 'MB' },
    { metric: 'gateway RSS peak under attack', value: peak.rss, unit: 'MB', target: '< 300 MB' },
    { metric: 'gateway open files at rest', value: atRest.files, unit: '' },
    { metric: 'gateway open files peak under attack', value: peak.files, unit: '', target: `< ${atRest.files + CAP + 50}` },
    { metric: 'other address p99 before', value: round(percentile(baseline.latencies, 99)), unit: 'ms' },
    { metric: 'other address p99 under attack', value: round(percentile(underAttack.latencies, 99)), unit: 'ms', target: '<= 2x before (floor 50 ms)' },
    { metric: 'other address calls under attack', value: underAttack.latencies.length, unit: '' },
    { metric: 'other address calls failed (5xx or none)', value: underAttack.failures, unit: '', target: '0' },
  ]);
  const p99Before = Math.max(percentile(baseline.latencies, 99), 50);
  const ok =
    refused.length + timedOut.length === outcome.length &&
    longestMs <= REQUEST_TIMEOUT_MS + 1000 &&
    peak.rss < 300 &&
    underAttack.failures === 0 &&
    percentile(underAttack.latencies, 99) <= 2 * p99Before;
  if (!ok) process.exitCode = 1;
} finally {
  otherAgent.destroy();
  await system.stop();
}

/** Opens every slow body (CONNECTS_AT_ONCE connecting at a time); resolves once all are closed. */
async function slowBodies() {
  const outcome = [];
  const closed = [];
  let next = 0;
  const opener = async () => {
    while (next < CONNECTIONS) {
      next += 1;
      const connection = await slowBody();
      outcome.push(connection);
      closed.push(connection.closed);
    }
  };
  await Promise.all(Array.from({ length: CONNECTS_AT_ONCE }, opener));
  process.stderr.write(`  ${CONNECTIONS} slow bodies opened; waiting for the gateway to close them\n`);
  await Promise.race([Promise.all(closed), sleep(REQUEST_TIMEOUT_MS + 15_000)]);
  // Whatever is still open at the deadline was held too long: its time is the deadline's.
  return outcome.map((c) => ({ received: c.received, closedAfterMs: c.closedAfterMs ?? Date.now() - c.opened }));
}

/** One connection sending a 1 MB body to an inbound URL, a byte a second. */
function slowBody() {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: ATTACKER });
    const connection = { opened: Date.now(), received: '', closedAfterMs: undefined, closed: undefined };
    connection.closed = new Promise((done) =>
      socket.once('close', () => {
        connection.closedAfterMs = Date.now() - connection.opened;
        clearInterval(trickle);
        done();
      }),
    );
    let trickle;
    socket.on('data', (chunk) => (connection.received += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(`POST /hooks/${randomUUID()}/${'t'.repeat(43)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n`);
      trickle = setInterval(() => !socket.destroyed && socket.write('1'), 1000);
      resolve(connection);
    });
    socket.once('close', () => resolve(connection));
  });
}

/** GET /v1/me from the other address, from 4 loops, for `ms`. */
async function victimCalls(ms) {
  const until = Date.now() + ms;
  const sample = { latencies: [], failures: 0 };
  const loop = async () => {
    while (Date.now() < until) {
      const started = performance.now();
      const status = await getMe();
      sample.latencies.push(performance.now() - started);
      if (status === 0 || status >= 500) sample.failures += 1;
    }
  };
  await Promise.all(Array.from({ length: 4 }, loop));
  sample.latencies.sort((a, b) => a - b);
  return sample;
}

function getMe() {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/me', headers: { 'x-api-key': KEY }, agent: otherAgent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

function rssMb(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
  return line ? Math.round(Number(line[1]) / 1024) : NaN;
}

function openFiles(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function round(ms) {
  return Math.round(ms * 10) / 10;
}

/** Node cannot raise its own file limit: below `needed`, run again under a shell that raises it to the hard limit. */
function ensureFileLimit(needed) {
  const soft = Number(spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim());
  if (!(soft < needed) || process.env.BENCH_FILE_LIMIT_RAISED) return;
  const script = fileURLToPath(import.meta.url);
  const result = spawnSync('sh', ['-c', `ulimit -n "$(ulimit -Hn)" && exec "${process.execPath}" "${script}"`], {
    env: { ...process.env, BENCH_FILE_LIMIT_RAISED: '1' },
    stdio: 'inherit',
  });
  process.exit(result.status ?? 1);
}
