// npm run test:faults — fault tests: start the system, put load on it, break something, recover,
// check what was promised, print the counts. Exit code 1 when any check fails.
//
//   node faults/run.mjs [kill-apps] [redis-restart] [postgres-restart]   (default: all three)
//
// Every scenario runs two processes of every app (the compiled dist/, copied aside first) on a
// private PostgreSQL cluster and a private Redis (append-only file, fsync always) that this script
// starts in a temporary directory and removes at the end, so the machine's shared services are
// never touched. Load: runs started through the API (Idempotency-Key, retried on 502/503/504 and on
// no answer), readers, a webhook on every agent delivering to a loopback receiver, and two schedules
// firing every second.
//
//   kill-apps         SIGKILL one process of each app in turn, start it again ~2 s later
//   redis-restart     SHUTDOWN the private Redis, start it again on the same data ~3 s later
//   postgres-restart  stop the private PostgreSQL (-m immediate), start it again ~3 s later
//
// Checks after recovery (polled for up to FAULTS_SETTLE_S, default 60 s):
//   - every accepted run (answered 201) exists and reaches a final state
//   - every due delivery (run.started of a run that started, the event of its final state)
//     arrives; duplicates under the same delivery id are allowed and counted, one event under two
//     delivery ids is a failure
//   - every schedule fire second from the first fire to the end of the load fired exactly once and
//     made exactly one run; only seconds when no scheduler could run (the database down) are excused
//   - no API answer was a 5xx other than a 503 while a dependency was down; no request was left
//     without an answer (except by a gateway process that was down)
//   - no app process exited without being told to
//
// Settings: FAULTS_SETTLE_S, FAULTS_KEEP=1 (keep the temporary directory and print where it is),
// FAULTS_LOG_LEVEL (the apps' LOG_LEVEL, default warn).
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { OUTAGE_GRACE_MS, classifyResponses, logErrors, settle } from './support/checks.mjs';
import { PrivatePostgres, PrivateRedis } from './support/infra.mjs';
import { ApiRecorder, RunLoad, WebhookReceiver } from './support/load.mjs';
import { AppSystem, START_ORDER, snapshotBuild } from './support/system.mjs';

const KEY = 'faults-bootstrap-key-0123456789abcdef';
const SETTLE_MS = Number(process.env.FAULTS_SETTLE_S ?? 60) * 1000;
const RUNNER_AGENTS = 4;
const SCHEDULED_AGENTS = 2;
const RUN_STEPS = 20;
/** The receiver answers each delivery after this long, so a killed webhook worker holds some in flight. */
const RECEIVER_HOLD_MS = 100;
const ALL_EVENTS = ['run.started', 'run.completed', 'run.failed', 'run.stopped', 'run.paused'];

const SCENARIOS = {
  'kill-apps': {
    title: 'kill -9 one process of each app in turn, restart it ~2 s later',
    async fault(s) {
      for (const [i, app] of START_ORDER.entries()) {
        const victim = s.system.of(app)[i % 2];
        const from = Date.now();
        await s.system.kill(victim, 'SIGKILL');
        s.mark(`SIGKILL ${app}-${victim.index} (pid ${victim.child.pid})`);
        await sleep(2_000);
        s.mark(`restart ${app}-${victim.index}`);
        await s.system.restart(victim);
        s.mark(`${app}-${victim.index} healthy again`);
        if (app === 'api-gateway') s.gatewayDown.push({ url: s.system.url(victim), from, to: Date.now() });
        // A dead back-end replica is a dependency down: the requests it held are answered 503 by a live one.
        else s.outages.push({ what: `${app}-${victim.index}`, from, to: Date.now() });
        await sleep(2_000);
      }
    },
  },
  'redis-restart': {
    title: 'restart Redis (SHUTDOWN, ~3 s down, start on the same append-only file)',
    async fault(s) {
      const from = Date.now();
      s.mark('redis SHUTDOWN');
      await s.infra.redis.stop();
      s.mark('redis down');
      await sleep(3_000);
      await s.infra.redis.start();
      s.mark('redis up');
      s.outages.push({ what: 'redis', from, to: Date.now() });
    },
  },
  'postgres-restart': {
    title: 'restart PostgreSQL (stop -m immediate, ~3 s down, start)',
    async fault(s) {
      const from = Date.now();
      s.mark('postgres stop -m immediate');
      await s.infra.pg.stop('immediate');
      s.mark('postgres down');
      await sleep(3_000);
      await s.infra.pg.start();
      s.mark('postgres up');
      const to = Date.now();
      s.outages.push({ what: 'postgres', from, to });
      // Every scheduler replica ticks in a database transaction: none can fire while the database is down.
      s.noScheduler.push({ from, to: to + OUTAGE_GRACE_MS });
    },
  },
};

const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(SCENARIOS);
for (const name of chosen) {
  if (!SCENARIOS[name]) {
    console.error(`unknown scenario ${name}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    process.exit(2);
  }
}

// ---- set-up and clean-up of everything this script starts ----------------------------------------
const tmp = mkdtempSync(join(tmpdir(), 'aas-faults-'));
chmodSync(tmp, 0o711); // the postgres OS user must reach its own directory inside
const cleanups = [];
let cleanedUp = false;
function cleanUpNow() {
  if (cleanedUp) return;
  cleanedUp = true;
  for (const fn of cleanups.reverse()) {
    try {
      fn();
    } catch {
      // best effort: go on with the rest
    }
  }
  if (process.env.FAULTS_KEEP === '1') console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', cleanUpNow);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.error(`\n${signal}: cleaning up`);
    process.exit(130);
  });
}
// The whole run is bounded: a hang anywhere still ends, and cleans up.
const watchdog = setTimeout(() => {
  console.error('fault tests took longer than 15 minutes; giving up');
  process.exit(1);
}, 15 * 60_000);
watchdog.unref();

const log = (line) => console.log(line);
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function main() {
  const runStarted = Date.now();
  const entryOf = await snapshotBuild(tmp);
  const redis = await PrivateRedis.create(tmp);
  cleanups.push(() => redis.killNow());
  const pg = await PrivatePostgres.create(tmp);
  cleanups.push(() => pg.killNow());
  log(`private PostgreSQL on 127.0.0.1:${pg.port}, private Redis on 127.0.0.1:${redis.port}, files in ${tmp}`);
  const infra = { redis, pg };

  const results = [];
  for (const name of chosen) {
    const result = await runScenario(name, infra, entryOf).catch((error) => ({ name, error }));
    if (result.error) log(`\n!! scenario ${name} could not run: ${result.error.stack ?? result.error}`);
    results.push(result);
  }
  printSummary(results, Date.now() - runStarted);
  return results.every((r) => !r.error && r.failures.length === 0);
}

async function runScenario(name, infra, entryOf) {
  const scenario = SCENARIOS[name];
  const id = randomBytes(3).toString('hex');
  const database = `aas_faults_${name.replace(/-/g, '_')}_${id}`;
  const redisPrefix = `aas-faults-${name}-${id}`;
  const databaseUrl = infra.pg.urlFor(database);
  log(`\n=== ${name}: ${scenario.title} ===`);

  const receiver = new WebhookReceiver(RECEIVER_HOLD_MS);
  const receiverUrl = await receiver.start();
  const system = new AppSystem({
    entryOf,
    logDir: join(tmp, 'logs', name),
    replicas: 2,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: databaseUrl,
      REDIS_URL: infra.redis.url,
      REDIS_PREFIX: redisPrefix,
      LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'warn',
      OTEL_SDK_DISABLED: 'true',
      BOOTSTRAP_API_KEY: KEY,
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // Retries within the settle time: a delivery that failed while something was down is due again soon.
      WEBHOOK_RETRY_DELAYS: '1s,2s,4s,8s,8s,8s,8s',
      WEBHOOK_LOCK_DURATION_MS: '3000',
      WEBHOOK_STALLED_INTERVAL_MS: '1000',
      RATE_LIMIT_REQUESTS: '0',
      RATE_LIMIT_UNAUTHENTICATED_REQUESTS: '0',
      BUILTIN_RUNTIME_STEP_MS: '20',
      // A run interrupted by a fault ends in error; that must not pause the schedule under test.
      SCHEDULE_AUTO_PAUSE_AFTER: '1000',
      SHUTDOWN_DRAIN_MS: '2000',
    },
  });
  const stopSystem = () => system.killNow();
  cleanups.push(stopSystem);

  const t0 = Date.now();
  const s = {
    system,
    infra,
    outages: [],
    gatewayDown: [],
    noScheduler: [],
    mark: (what) => {
      log(`  +${secs(Date.now() - t0)}  ${what}`);
    },
  };
  try {
    await system.start();
    s.mark(`${system.processes.length} processes healthy`);
    const api = new ApiRecorder(KEY, () => system.gatewayUrls());

    // Agents, each with a webhook for every lifecycle event; two deployed ones get a schedule firing every second.
    const agents = [];
    for (let i = 0; i < RUNNER_AGENTS + SCHEDULED_AGENTS; i++) {
      const agentId = (await must(api, 'POST', '/v1/agents', {}, 201)).agent.agent_id;
      await must(api, 'POST', `/v1/agents/${agentId}/webhooks`, { url: `${receiverUrl}/hook/${i}`, events: ALL_EVENTS }, 201);
      agents.push(agentId);
    }
    const runnerAgents = agents.slice(0, RUNNER_AGENTS);
    // Runs of many steps (~0.5 s each), so a kill or an outage always finds some in the middle.
    const plan_steps = Array.from({ length: RUN_STEPS }, (_, i) => ({ title: `step ${i}`, description: 'wait', tools: [], order: i }));
    for (const agentId of runnerAgents) await must(api, 'PUT', `/v1/agents/${agentId}/instructions`, { content: 'fault test', plan_steps }, 200);
    const scheduledAgents = agents.slice(RUNNER_AGENTS);
    for (const agentId of scheduledAgents) await must(api, 'POST', `/v1/agents/${agentId}/runs`, { run_mode: 'build' }, 201);
    for (const agentId of scheduledAgents) await waitDeployed(api, agentId);
    const schedules = [];
    for (const agentId of scheduledAgents) {
      await must(api, 'PUT', `/v1/agents/${agentId}/schedule`, { cron: '* * * * * ? *', overlap: 'allow' }, 200);
      // next_run is computed when read, so it is never before the first fire: checking starts there.
      const { schedule } = await must(api, 'GET', `/v1/agents/${agentId}/schedule`, undefined, 200);
      schedules.push({ agent_id: agentId, first_fire: schedule.next_run });
    }
    s.mark(`set up: ${agents.length} agents with webhooks, ${RUNNER_AGENTS} with runs of ${RUN_STEPS} steps, ${schedules.length} schedules every second`);

    const load = new RunLoad({ api, agents: runnerAgents });
    load.start();
    s.mark('load started');
    await sleep(4_000);
    await scenario.fault(s);
    await sleep(5_000);
    await load.stop();
    const loadEnd = Date.now();
    s.mark(`load stopped: ${load.accepted.size} runs accepted, ${load.refused.length} refused, ${load.retries} retries`);

    let lastWait = 0;
    // Fires due until 2 s before the end of the load must all have happened by now (or soon, if delayed).
    const fireEnd = Math.floor((loadEnd - 2_000) / 1000) * 1000;
    const result = await settle(
      { databaseUrl, redisUrl: infra.redis.url, redisPrefix },
      () => ({ accepted: load.accepted, schedules, fireEnd, noScheduler: s.noScheduler, received: receiver.received }),
      SETTLE_MS,
      (what) => {
        if (Date.now() - lastWait < 5_000) return;
        lastWait = Date.now();
        log(`  +${secs(Date.now() - t0)}  settling: ${what}`);
      },
    );
    const settledIn = Date.now() - loadEnd;
    s.mark(`settled ${secs(settledIn)} after the load stopped`);
    const api5xx = classifyResponses(api.responses, { outages: s.outages, gatewayDown: s.gatewayDown });
    const unexpectedExits = system.unexpectedExits;
    await system.stopAll();

    const failures = verdict({ result, load, api5xx, unexpectedExits });
    const report = { name, result, load, api5xx, unexpectedExits, failures, settledIn, t0, system };
    printScenario(report);
    return report;
  } finally {
    await system.stopAll().catch(() => undefined);
    cleanups.splice(cleanups.indexOf(stopSystem), 1);
    await receiver.close();
  }
}

async function must(api, method, path, body, status) {
  let last;
  for (let attempt = 0; attempt < 10; attempt++) {
    last = await api.call(method, path, { body });
    if (last.status === status) return last.body;
    if (last.status !== 0 && last.status < 500) break;
    await sleep(500);
  }
  throw new Error(`${method} ${path}: expected ${status}, got ${last.status} ${JSON.stringify(last.body ?? last.error)}`);
}

async function waitDeployed(api, agentId) {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const res = await api.call('GET', `/v1/agents/${agentId}`);
    if (res.body?.agent?.deployment_state === 'deployed') return;
    await sleep(200);
  }
  throw new Error(`agent ${agentId} was not deployed by its build run within 30 s`);
}

function verdict({ result, load, api5xx, unexpectedExits }) {
  const f = [];
  const { runs, fires, deliveries } = result;
  if (runs.lost.length) f.push(`${runs.lost.length} accepted runs do not exist`);
  if (runs.notFinal.length) f.push(`${runs.notFinal.length} runs never reached a final state`);
  if (load.refused.length) f.push(`${load.refused.length} run starts got no 201 in the end`);
  if (deliveries.missing.length) f.push(`${deliveries.missing.length} due deliveries never arrived`);
  if (deliveries.notRecorded.length) f.push(`${deliveries.notRecorded.length} deliveries arrived but their row never left '${deliveries.notRecorded[0].row.status}'`);
  if (deliveries.splitIds.length) f.push(`${deliveries.splitIds.length} events delivered under more than one delivery id`);
  if (deliveries.unexpected) f.push(`${deliveries.unexpected} deliveries of events that did not happen`);
  if (fires.lost.length) f.push(`${fires.lost.length} schedule fires lost`);
  if (fires.doubled.length) f.push(`${fires.doubled.length} schedule fires doubled`);
  if (fires.withoutRun.length) f.push(`${fires.withoutRun.length} fires made no run`);
  if (fires.runsWithoutFire.length) f.push(`${fires.runsWithoutFire.length} scheduled runs that no fire explains`);
  if (api5xx.violations.length) f.push(`${api5xx.violations.length} API answers were a 5xx other than an outage's 503, or no answer`);
  if (unexpectedExits.length) f.push(`${unexpectedExits.length} app processes exited on their own`);
  return f;
}

function printScenario({ name, result, load, api5xx, unexpectedExits, failures, t0, system }) {
  const { runs, fires, deliveries } = result;
  const rel = (at) => `+${secs(at - t0)}`;
  const statuses = Object.entries(runs.byStatus).map(([k, v]) => `${k} ${v}`).join(', ');
  const byStatus = Object.entries(api5xx.byStatus).sort().map(([k, v]) => `${k}: ${v}`).join(', ');
  log(`  runs        accepted ${runs.accepted} (${load.attempts} POSTs, ${load.retries} retried, ${load.refused.length} refused); ` +
    `checked ${runs.considered} incl. ${runs.scheduled} scheduled: ${statuses}; lost ${runs.lost.length}, not final ${runs.notFinal.length}`);
  log(`  deliveries  due ${deliveries.expected}, arrived ${deliveries.arrived}, missing ${deliveries.missing.length}, ` +
    `duplicate receipts ${deliveries.duplicates} (allowed), arrived but not recorded ${deliveries.notRecorded.length}, split ids ${deliveries.splitIds.length}, unexpected ${deliveries.unexpected}, ` +
    `received in all ${deliveries.received}`);
  log(`  schedules   fire seconds due ${fires.expected}, fired ${fires.fired}, lost ${fires.lost.length}, excused ${fires.excused}, ` +
    `doubled ${fires.doubled.length}, fires without run ${fires.withoutRun.length}, runs without fire ${fires.runsWithoutFire.length} ` +
    `(${fires.later} more fires after the window); fire to run start: ${fires.late} later than 5 s, at most ${secs(fires.maxLagMs)}`);
  log(`  api         ${api5xx.total} requests: ${byStatus}; 503 during an outage ${api5xx.allowed503}, ` +
    `no answer from a killed gateway ${api5xx.noAnswerAllowed}, violations ${api5xx.violations.length}`);
  log(`  processes   unexpected exits ${unexpectedExits.length}`);

  for (const v of api5xx.violations.slice(0, 20)) {
    log(`    ! ${rel(v.at)} ${new Date(v.at).toISOString()} ${v.method} ${v.path} via ${v.gateway} -> ` +
      `${v.status || v.error} after ${v.ms} ms ${v.body ?? ''}`);
  }
  if (api5xx.violations.length > 20) log(`    ! … and ${api5xx.violations.length - 20} more`);
  for (const r of load.refused.slice(0, 5)) log(`    ! start refused after ${r.attempts} attempts: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
  for (const r of runs.lost.slice(0, 5)) log(`    ! accepted run ${r.run_id} (agent ${r.agent_id}) is not in the database`);
  for (const r of runs.notFinal.slice(0, 10)) log(`    ! run ${r.run_id} (${r.kind}, agent ${r.agent_id}) still ${r.status}`);
  for (const d of deliveries.missing.slice(0, 10)) {
    log(`    ! delivery ${d.event} of run ${d.run_id} missing; its row: ${d.row ? JSON.stringify(d.row) : 'none (never fanned out)'}`);
  }
  for (const d of deliveries.notRecorded.slice(0, 5)) log(`    ! delivery ${d.event} of run ${d.run_id} arrived; its row: ${JSON.stringify(d.row)}`);
  for (const d of deliveries.splitIds.slice(0, 5)) log(`    ! ${d.event} of run ${d.run_id} came under ids ${d.ids.join(', ')}`);
  for (const x of fires.lost.slice(0, 10)) log(`    ! fire lost: agent ${x.agent_id} at ${x.fire_time}`);
  for (const x of fires.doubled.slice(0, 10)) log(`    ! fire doubled: agent ${x.agent_id} at ${x.fire_time} x${x.count}`);
  for (const x of fires.withoutRun.slice(0, 10)) log(`    ! fire without run: agent ${x.agent_id} at ${x.fire_time}`);
  for (const x of unexpectedExits) log(`    ! ${x.app}-${x.index} (pid ${x.pid}) exited by itself at ${rel(x.at)}: code ${x.code} signal ${x.signal}`);

  // Error lines of the apps' logs: evidence when something failed, and worth seeing when nothing did.
  const seenFiles = new Set();
  const errorsByFile = [];
  for (const p of system.processes) {
    if (seenFiles.has(p.log)) continue;
    seenFiles.add(p.log);
    const groups = logErrors(p.log);
    if (groups.length) errorsByFile.push({ name: `${p.app}-${p.index}`, groups });
  }
  if (errorsByFile.length) log('  error lines in the apps\' logs (grouped):');
  for (const { name: proc, groups } of errorsByFile) {
    for (const g of groups.slice(0, failures.length ? 6 : 3)) log(`    ${proc}: ${g.count}x ${g.msg}`);
    if (failures.length) log(`      first: ${groups[0].first}`);
  }
  log(failures.length ? `  RESULT ${name}: FAIL\n${failures.map((x) => `    - ${x}`).join('\n')}` : `  RESULT ${name}: pass`);
}

function printSummary(results, totalMs) {
  const rows = [['scenario', 'runs ok/accepted', 'not final', 'deliveries arrived/due', 'dup', 'fires ok/due', 'lost', 'excused', 'doubled',
    'requests', '503 outage', '5xx/none other', 'settled', 'result']];
  for (const r of results) {
    if (r.error) {
      rows.push([r.name, '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', '-', 'ERROR']);
      continue;
    }
    const { runs, fires, deliveries } = r.result;
    rows.push([
      r.name,
      `${runs.accepted - runs.lost.length}/${runs.accepted}`,
      String(runs.notFinal.length),
      `${deliveries.arrived}/${deliveries.expected}`,
      String(deliveries.duplicates),
      `${fires.fired - fires.withoutRun.length}/${fires.expected}`,
      String(fires.lost.length),
      String(fires.excused),
      String(fires.doubled.length),
      String(r.api5xx.total),
      String(r.api5xx.allowed503),
      String(r.api5xx.violations.length),
      secs(r.settledIn),
      r.failures.length ? 'FAIL' : 'pass',
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  log('\n=== summary ===');
  for (const row of rows) log(row.map((cell, i) => cell.padEnd(widths[i])).join('  '));
  const passed = results.filter((r) => !r.error && r.failures.length === 0).length;
  log(`\ntotal time ${secs(totalMs)}`);
  log(`faults: ${passed} passed, ${results.length - passed} failed`);
}

main().then(
  (ok) => {
    cleanUpNow();
    process.exit(ok ? 0 : 1);
  },
  (error) => {
    console.error(error.stack ?? error);
    cleanUpNow();
    process.exit(1);
  },
);
