// What the system promised, read back from its own stores after recovery: runs (runs schema),
// schedule fires (the scheduler's fire queue in Redis, plus fires still in its outbox), deliveries
// (the receiver's record, and the webhooks schema for why one is missing), and every API answer.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const { Queue } = require('bullmq');
const Redis = require('ioredis');

const TERMINAL_EVENT = { completed: 'run.completed', error: 'run.failed', stopped: 'run.stopped', paused: 'run.paused' };
const FIRE_QUEUE = 'scheduler-fires';
/** After a dependency is back, its clients may take a moment to reconnect; a 503 then is still the outage's. */
export const OUTAGE_GRACE_MS = 5_000;

/** Reads everything the checks need; each call opens its own connections (a restarted database drops old ones). */
export async function observe({ databaseUrl, redisUrl, redisPrefix }) {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const runs = (await pg.query(
      `SELECT id, agent_id, run_kind, status, is_finished, extract(epoch FROM started_at) * 1000 AS started_ms FROM runs.runs`,
    )).rows;
    const started = new Set((await pg.query(`SELECT run_id FROM runs.run_events WHERE event ? 'started'`)).rows.map((r) => r.run_id));
    const keys = (await pg.query(`SELECT key, run_id FROM runs.run_idempotency_keys WHERE key LIKE 'schedule:%'`)).rows;
    const outboxFires = (await pg.query(`SELECT payload FROM scheduler.outbox WHERE event = 'schedule.fire'`)).rows.map((r) => r.payload);
    const deliveries = (await pg.query(
      `SELECT d.id, d.status, d.event, d.attempt_count, d.body::jsonb -> 'data' ->> 'run_id' AS run_id,
              (SELECT a.error FROM webhooks.delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.attempt DESC LIMIT 1) AS last_error
         FROM webhooks.deliveries d`,
    )).rows;
    const fires = [...(await queuedFires(redisUrl, redisPrefix)), ...outboxFires];
    return { runs, started, keys, fires, deliveries };
  } finally {
    await pg.end().catch(() => undefined);
  }
}

async function queuedFires(redisUrl, prefix) {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(FIRE_QUEUE, { connection, prefix });
  try {
    const jobs = await queue.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed', 'prioritized', 'paused', 'waiting-children']);
    return jobs.filter(Boolean).map((job) => ({ ...job.data, job_state: job.failedReason ? 'failed' : undefined }));
  } finally {
    await queue.close();
    connection.disconnect();
  }
}

/**
 * @param {object} o
 * @param {ReturnType<typeof observe> extends Promise<infer T> ? T : never} o.seen
 * @param {Map<string, {run_id: string, agent_id: string}>} o.accepted  runs whose start was answered 201
 * @param {{agent_id: string, first_fire: number}[]} o.schedules
 * @param {number} o.fireEnd  fires due up to this time must all have happened
 * @param {{from: number, to: number}[]} o.noScheduler  times when no scheduler replica could run
 * @param {{deliveryId: string, event: string, runId: string}[]} o.received
 */
export function evaluate({ seen, accepted, schedules, fireEnd, noScheduler, received }) {
  const runsById = new Map(seen.runs.map((r) => [r.id, r]));
  const scheduledAgents = new Set(schedules.map((s) => s.agent_id));

  // Schedule fires, per agent and fire time.
  const fireCount = new Map();
  for (const fire of seen.fires) {
    const k = `${fire.agent_id}:${Date.parse(fire.fire_time)}`;
    fireCount.set(k, (fireCount.get(k) ?? 0) + 1);
  }
  const runOfFire = new Map(seen.keys.map((k) => [k.key.replace(/^schedule:/, ''), k.run_id]));
  const fires = { expected: 0, fired: 0, lost: [], excused: 0, doubled: [], withoutRun: [], runsWithoutFire: [], later: 0, maxLagMs: 0, late: 0 };
  const requiredScheduledRuns = new Set();
  for (const { agent_id, first_fire } of schedules) {
    for (let t = first_fire; t <= fireEnd; t += 1000) {
      const k = `${agent_id}:${t}`;
      const count = fireCount.get(k) ?? 0;
      fires.expected += 1;
      if (count > 1) fires.doubled.push({ agent_id, fire_time: new Date(t).toISOString(), count });
      if (count === 0) {
        if (noScheduler.some((w) => t >= w.from && t <= w.to)) fires.excused += 1;
        else fires.lost.push({ agent_id, fire_time: new Date(t).toISOString() });
        continue;
      }
      fires.fired += 1;
      const runId = runOfFire.get(k);
      if (!runId) {
        fires.withoutRun.push({ agent_id, fire_time: new Date(t).toISOString() });
        continue;
      }
      requiredScheduledRuns.add(runId);
      const lag = Number(runsById.get(runId)?.started_ms ?? t) - t;
      fires.maxLagMs = Math.max(fires.maxLagMs, lag);
      if (lag > 5_000) fires.late += 1;
    }
  }
  for (const k of fireCount.keys()) if (Number(k.split(':')[1]) > fireEnd) fires.later += 1;
  const keyedRuns = new Set(seen.keys.map((k) => k.run_id));
  for (const run of seen.runs) {
    if (run.run_kind === 'schedule' && !keyedRuns.has(run.id)) fires.runsWithoutFire.push(run.id);
  }

  // Runs: every accepted one exists and is final; so is every other run the checks rely on.
  const runs = { accepted: accepted.size, lost: [], notFinal: [], byStatus: {}, considered: 0 };
  for (const { run_id, agent_id } of accepted.values()) {
    if (!runsById.has(run_id)) runs.lost.push({ run_id, agent_id });
  }
  const considered = seen.runs.filter(
    (r) => r.run_kind !== 'schedule' || requiredScheduledRuns.has(r.id) || !keyedRuns.has(r.id),
  );
  runs.considered = considered.length;
  for (const run of considered) {
    runs.byStatus[run.status] = (runs.byStatus[run.status] ?? 0) + 1;
    if (!run.is_finished) runs.notFinal.push({ run_id: run.id, agent_id: run.agent_id, status: run.status, kind: run.run_kind });
  }
  runs.scheduled = considered.filter((r) => r.run_kind === 'schedule').length;

  // Deliveries: run.started for a run that recorded its start, and the event of its final state.
  const expected = new Map();
  for (const run of considered) {
    if (seen.started.has(run.id)) expected.set(`${run.id}|run.started`, { run_id: run.id, event: 'run.started' });
    const terminal = run.is_finished || run.status === 'paused' ? TERMINAL_EVENT[run.status] : undefined;
    if (terminal) expected.set(`${run.id}|${terminal}`, { run_id: run.id, event: terminal });
  }
  const got = new Map();
  for (const r of received) {
    const k = `${r.runId}|${r.event}`;
    if (!got.has(k)) got.set(k, []);
    got.get(k).push(r.deliveryId);
  }
  const rowsByRunEvent = new Map(seen.deliveries.map((d) => [`${d.run_id}|${d.event}`, d]));
  const deliveries = {
    expected: expected.size, arrived: 0, missing: [], duplicates: 0, splitIds: [], unexpected: 0, received: received.length,
    /** Arrived, yet the delivery history does not say so. */
    notRecorded: [],
  };
  for (const [k, want] of expected) {
    const ids = got.get(k);
    if (!ids) {
      const row = rowsByRunEvent.get(k);
      deliveries.missing.push({ ...want, row: row ? { id: row.id, status: row.status, attempts: row.attempt_count, last_error: row.last_error } : null });
      continue;
    }
    deliveries.arrived += 1;
    const row = rowsByRunEvent.get(k);
    if (row && row.status !== 'succeeded') deliveries.notRecorded.push({ ...want, row: { id: row.id, status: row.status, attempts: row.attempt_count } });
    const distinct = new Set(ids);
    deliveries.duplicates += ids.length - distinct.size;
    if (distinct.size > 1) deliveries.splitIds.push({ ...want, ids: [...distinct] });
  }
  const consideredIds = new Set(considered.map((r) => r.id));
  for (const [k, ids] of got) {
    const runId = k.split('|')[0];
    if (consideredIds.has(runId) && !expected.has(k)) deliveries.unexpected += ids.length;
  }
  return { runs, fires, deliveries, scheduledAgents: scheduledAgents.size };
}

/** True when waiting longer could still change the verdict. */
export function stillSettling(result) {
  const { runs, deliveries, fires } = result;
  return runs.notFinal.length > 0 || deliveries.missing.length > 0 || deliveries.notRecorded.length > 0 || fires.withoutRun.length > 0;
}

/** Observes and evaluates until nothing is left to settle or `ms` passes. */
export async function settle(observeArgs, evaluateArgs, ms, onWait) {
  const until = Date.now() + ms;
  for (;;) {
    let result;
    try {
      result = evaluate({ ...evaluateArgs(), seen: await observe(observeArgs) });
    } catch (error) {
      if (Date.now() > until) throw error;
      onWait?.(`(observing failed: ${error.message})`);
      await sleep(1_000);
      continue;
    }
    if (!stillSettling(result) || Date.now() > until) return result;
    onWait?.(
      `${result.runs.notFinal.length} runs not final, ${result.deliveries.missing.length} deliveries missing, ` +
        `${result.deliveries.notRecorded.length} arrived but not recorded, ${result.fires.withoutRun.length} fires without a run`,
    );
    await sleep(1_000);
  }
}

/**
 * Sorts every API answer: a 503 is allowed while a dependency is down (and OUTAGE_GRACE_MS after);
 * a dropped connection is allowed from a gateway process that was down or was killed holding it. Anything else 5xx, and any request
 * left without an answer, is a violation.
 */
export function classifyResponses(responses, { outages, gatewayDown }) {
  // In flight at any moment of the outage (a request sent just before it began is held by what went down).
  const inOutage = (r) => outages.some((w) => r.at + r.ms >= w.from && r.at <= w.to + OUTAGE_GRACE_MS);
  const summary = { total: responses.length, byStatus: {}, allowed503: 0, violations: [], noAnswerAllowed: 0 };
  for (const r of responses) {
    const label = r.status === 0 ? (r.timeout ? 'timeout' : 'no-connection') : String(r.status);
    summary.byStatus[label] = (summary.byStatus[label] ?? 0) + 1;
    if (r.status === 503 && inOutage(r)) summary.allowed503 += 1;
    else if (r.status >= 500) summary.violations.push(r);
    else if (r.status === 0) {
      // Sent to a gateway process while it was down, or held by it when it was killed.
      const down = gatewayDown.some((w) => w.url === r.gateway && r.at <= w.to && r.at + r.ms >= w.from);
      if (down && !r.timeout) summary.noAnswerAllowed += 1;
      else summary.violations.push(r);
    }
  }
  return summary;
}

/** Error-level (and worse) lines of an app's log, grouped by message: [{ msg, count, first }]. */
export function logErrors(file, minLevel = 50) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const groups = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) {
      if (/error|fatal|unhandled/i.test(line) && !line.startsWith('---')) add(groups, line.slice(0, 300), line);
      continue;
    }
    let entry;
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if ((entry.level ?? 0) < minLevel) continue;
    const msg = `${entry.context ? `[${entry.context}] ` : ''}${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`;
    add(groups, msg.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id').slice(0, 300), line);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

function add(groups, key, line) {
  const group = groups.get(key) ?? { msg: key, count: 0, first: line.slice(0, 600) };
  group.count += 1;
  groups.set(key, group);
}
