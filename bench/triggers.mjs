// npm run bench:triggers — inbound webhook calls accepted per second (each a run committed before
// the 202), with p50/p99 accept latency, at 20 connections (autocannon), for an endpoint without
// verification and one with Standard Webhooks signatures; every call carries its own webhook-id.
// Then checks that every 202 named its own run, and that no call made a run it did not answer for,
// but for those autocannon cut off in flight when a load's time was up (at most one per connection).
//   BENCH_SECONDS (default 10 per measurement), BENCH_CONNECTIONS (default 20)
import { createRequire } from 'node:module';
import { report } from './support/report.mjs';
import { api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const autocannon = require('autocannon');
const { Webhook } = require('standardwebhooks');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const KEY = `bench-${Date.now()}-key-0123456789`;
const BODY = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/app' }, commits: [{ id: 'a1', message: 'fix' }] });

const system = await startSystem({
  apps: ['agents-service', 'runs-service', 'scheduler-service', 'api-gateway'],
  env: {
    BOOTSTRAP_API_KEY: KEY,
    RATE_LIMIT_REQUESTS: '0',
    RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '0',
    RATE_LIMIT_INBOUND_ENDPOINT_REQUESTS: '0',
    RATE_LIMIT_INBOUND_OWNER_REQUESTS: '0',
    // Acceptance is measured: thousands of runs a minute, most of them waiting for admission.
    RATE_LIMIT_TRIGGERED_RUNS: '0',
    QUOTA_WAITING_RUNS_PER_USER: '0',
    BUILTIN_RUNTIME_STEP_MS: '0',
  },
});

async function deployedAgent() {
  const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
  await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/runs`, { run_mode: 'build' });
  for (let i = 0; i < 100; i++) {
    if ((await api(system.url, KEY, 'GET', `/v1/agents/${agentId}`)).body.agent.deployment_state === 'deployed') return agentId;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the agent was not deployed');
}

async function endpoint(agentId, verification) {
  const created = await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/triggers`, {
    kind: 'webhook',
    verification,
    message_template: 'Push to {{payload.repository.full_name}}',
  });
  if (created.status !== 201) throw new Error(`trigger: ${created.status} ${JSON.stringify(created.body)}`);
  return { path: new URL(created.body.url).pathname, secret: created.body.secret };
}

let delivery = 0;
/** The run ids the 202s named, all loads together. */
const answered = new Set();
let accepted = 0;
async function load(title, path, sign) {
  process.stderr.write(`  ${title}: ${SECONDS} s at ${CONNECTIONS} connections...\n`);
  const result = await autocannon({
    url: system.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: 'POST',
        path,
        setupRequest: (request) => {
          const id = `msg_${++delivery}`;
          return { ...request, body: BODY, headers: { 'content-type': 'application/json', 'webhook-id': id, ...sign(id) } };
        },
        onResponse: (status, body) => {
          if (status === 202) answered.add(JSON.parse(body).run_id);
        },
      },
    ],
  });
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${title}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  accepted += result['2xx'];
  return { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, total: result['2xx'] };
}

try {
  const agentId = await deployedAgent();
  const open = await endpoint(agentId, 'none');
  const signed = await endpoint(agentId, 'standard_webhooks');
  const signer = new Webhook(signed.secret);
  const signHeaders = (id) => {
    const at = new Date();
    return { 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign(id, at, BODY) };
  };
  await load('warm-up', open.path, () => ({}));
  const plain = await load('inbound, no verification', open.path, () => ({}));
  const verified = await load('inbound, Standard Webhooks', signed.path, signHeaders);
  // Calls cut off when a load ended still finish on the server: wait for them before counting.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const runs = (await api(system.url, KEY, 'GET', `/v1/agents/${agentId}/runs?page_size=1&filter_trigger_kind=webhook`)).body.total_runs;
  if (answered.size !== accepted) throw new Error(`${accepted} calls answered 202 but they named ${answered.size} distinct runs`);
  const cutOff = runs - accepted;
  if (cutOff < 0 || cutOff > 3 * CONNECTIONS) throw new Error(`${runs} runs made for ${accepted} calls answered 202`);
  report('triggers', [
    { metric: 'inbound calls accepted (run committed), no verification', value: plain.rps, unit: 'req/s' },
    { metric: 'inbound accept latency p50 / p99, no verification', value: `${plain.p50} / ${plain.p99}`, unit: 'ms' },
    { metric: 'inbound calls accepted, Standard Webhooks signatures', value: verified.rps, unit: 'req/s' },
    { metric: 'inbound accept latency p50 / p99, Standard Webhooks', value: `${verified.p50} / ${verified.p99}`, unit: 'ms' },
    { metric: 'calls answered 202, each naming its own run (all three loads)', value: accepted, unit: '' },
    { metric: 'runs made for calls cut off in flight at the end of a load (at most 3 x connections)', value: cutOff, unit: '' },
  ]);
} finally {
  await system.stop();
}
