// The run path reference's statements (bench/reference/run-path/): one transaction to accept a run,
// one per recorded event, and the two relays' outbox batches. Named statements: pg prepares each
// once per connection.
import { randomUUID } from 'node:crypto';

/** Outbox rows the API's relay turns into execution jobs. */
export const QUEUED = 'run.queued';
/** Outbox rows a relay takes in one transaction. */
export const RELAY_BATCH = 500;

/** Runs `work` in one transaction on one connection; rolled back when it throws. */
export async function inTransaction(pool, work) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Accepts a run: the agent's owner checked and its next run number taken under its row lock, the
 * deployment checked, the run and its outbox row inserted. `{ refused: status }` when it cannot start.
 */
export function acceptRun(pool, { userId, agentId, runMode = 'run', goal = null, skipDeployCheck = false }) {
  return inTransaction(pool, async (client) => {
    const agent = await client.query({
      name: 'take-run-number',
      text: 'UPDATE agents SET run_counter = run_counter + 1 WHERE id = $1 AND user_id = $2 RETURNING run_counter, deployed_at',
      values: [agentId, userId],
    });
    if (agent.rows.length === 0) return { refused: 404 };
    if (!skipDeployCheck && runMode === 'run' && agent.rows[0].deployed_at === null) return { refused: 409 };
    const now = new Date();
    const run = await client.query({
      name: 'insert-run',
      text: `INSERT INTO runs (id, agent_id, user_id, run_number, run_mode, goal, started_at, last_event_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING *`,
      values: [randomUUID(), agentId, userId, agent.rows[0].run_counter, runMode, goal, now],
    });
    await client.query({ name: 'queue-run', text: 'INSERT INTO outbox (topic, payload) VALUES ($1, $2)', values: [QUEUED, { run_id: run.rows[0].id }] });
    return { run: run.rows[0] };
  });
}

const RUN_COLUMNS = 'id, agent_id, user_id, run_kind, status, is_finished, outcome, summary, trigger_depth, finished_at';

/**
 * Records event 0 (`started`) of a run not started yet, with the agent's plan steps for the runtime;
 * undefined for a run already started or finished (a job delivered again is never executed twice).
 */
export function recordStart(pool, runId) {
  return recordEvent(pool, runId, { started: {} }, { status: 'in_progress', lifecycle: 'run.started' }, (client, now, bytes) =>
    client.query({
      name: 'start-run',
      text: `UPDATE runs r SET event_count = 1, event_bytes = $2, last_event_at = $3
             FROM agents a WHERE r.id = $1 AND r.event_count = 0 AND NOT r.is_finished AND a.id = r.agent_id
             RETURNING 0 AS event_index, a.plan_steps, ${RUN_COLUMNS.split(', ').map((c) => `r.${c}`).join(', ')}`,
      values: [runId, bytes, now],
    }),
  );
}

/**
 * Records one event of a started run: its index taken and the run's columns changed under the
 * run's row lock, the event inserted, and for a lifecycle change the outbox row and the agent's
 * latest-run summary. Undefined when the run is finished.
 */
export function recordNext(pool, runId, event, change) {
  return recordEvent(pool, runId, event, change, (client, now, bytes) =>
    client.query({
      name: 'change-run',
      text: `UPDATE runs SET event_count = event_count + 1, event_bytes = event_bytes + $2, last_event_at = $3,
               step_count = step_count + $4, status = $5, is_finished = $6, outcome = COALESCE($7, outcome),
               summary = COALESCE($8, summary), finished_at = CASE WHEN $6 THEN $3::timestamptz END
             WHERE id = $1 AND NOT is_finished
             RETURNING event_count - 1 AS event_index, ${RUN_COLUMNS}`,
      values: [runId, bytes, now, change.stepDelta ?? 0, change.status, change.finished ?? false, change.outcome ?? null, change.summary ?? null],
    }),
  );
}

async function recordEvent(pool, runId, event, change, updateRun) {
  return inTransaction(pool, async (client) => {
    const now = new Date();
    const { rows } = await updateRun(client, now, Buffer.byteLength(JSON.stringify(event)));
    if (rows.length === 0) return undefined;
    const run = rows[0];
    await client.query({
      name: 'insert-event',
      text: 'INSERT INTO run_events (run_id, event_index, recorded_at, event) VALUES ($1, $2, $3, $4)',
      values: [runId, run.event_index, now, event],
    });
    if (change.lifecycle) {
      await client.query({ name: 'announce', text: 'INSERT INTO outbox (topic, payload) VALUES ($1, $2)', values: [change.lifecycle, lifecycleEvent(change.lifecycle, run, now)] });
      await client.query({
        name: 'latest-run',
        text: 'UPDATE agents SET latest_run_id = $2, latest_run_status = $3, latest_run_at = $4 WHERE id = $1',
        values: [run.agent_id, run.id, run.status, now],
      });
    }
    return { run, item: { event_index: Number(run.event_index), recorded_at: now.toISOString(), event } };
  });
}

/** The run.* webhook payload, as runs-service writes it (run-change.ts). */
function lifecycleEvent(name, run, now) {
  const event = {
    event: name,
    run_id: run.id,
    agent_id: run.agent_id,
    user_id: run.user_id,
    status: run.status,
    run_kind: run.run_kind,
    schedule_agent_id: null,
    timestamp: now.toISOString(),
    trigger_depth: run.trigger_depth,
    chain_root_id: run.id,
    agent_generation: null,
  };
  if (run.is_finished) event.summary = run.summary;
  if (run.outcome) event.outcome = run.outcome;
  if (run.finished_at) event.finished_at = run.finished_at.toISOString();
  return event;
}

/**
 * Takes a batch of queued runs off the outbox and hands it to `publish` inside the transaction:
 * the rows are deleted only once it resolved, so a relay that dies re-publishes them (the job id,
 * the outbox id, makes that a no-op). Returns how many it took.
 */
export function relayQueued(pool, publish) {
  return inTransaction(pool, async (client) => {
    const { rows } = await client.query({
      name: 'take-queued',
      text: `DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE topic = $1 ORDER BY id LIMIT ${RELAY_BATCH} FOR UPDATE SKIP LOCKED)
             RETURNING id, payload`,
      values: [QUEUED],
    });
    if (rows.length > 0) await publish(rows);
    return rows.length;
  });
}

/**
 * One statement: takes a batch of lifecycle rows off the outbox, inserts a delivery for every
 * webhook of the run's agent subscribed to the event, and returns the event triggers they fire.
 */
export async function relayLifecycle(pool) {
  const { rows } = await pool.query({
    name: 'relay-lifecycle',
    text: `WITH batch AS (
             DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE topic <> $1 ORDER BY id LIMIT ${RELAY_BATCH} FOR UPDATE SKIP LOCKED)
             RETURNING topic, payload, (payload->>'agent_id')::uuid AS agent_id
           ), delivered AS (
             INSERT INTO deliveries (webhook_id, event, payload)
             SELECT w.id, b.topic, b.payload FROM batch b JOIN webhooks w ON w.agent_id = b.agent_id AND b.topic = ANY (w.events)
           )
           SELECT t.target_agent_id, b.payload
           FROM batch b LEFT JOIN event_triggers t ON t.source_agent_id = b.agent_id AND b.topic = ANY (t.events)`,
    values: [QUEUED],
  });
  // One row per row taken (more when it fires several triggers): enough to tell a full batch.
  return { taken: rows.length, fired: rows.filter((r) => r.target_agent_id !== null) };
}
