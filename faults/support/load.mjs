// The load and the witnesses: an HTTP client that records every answer (status, time, body of a 5xx),
// run starters that use Idempotency-Key and retry while the system cannot answer, readers, and a
// webhook receiver that records every delivery it gets.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

const REQUEST_TIMEOUT_MS = 20_000;
/** Answers a start is retried on, with the same Idempotency-Key: the system could not answer (yet). */
const RETRIED = new Set([502, 503, 504]);

/** Every API answer, in order: { at, method, path, gateway, status (0: no answer), ms, body (5xx), error }. */
export class ApiRecorder {
  constructor(key, gatewayUrls) {
    this.key = key;
    this.gatewayUrls = gatewayUrls;
    this.responses = [];
    this.next = 0;
  }

  /** Round robin over the gateways; `gateway` picks one. */
  async call(method, path, { body, headers = {}, gateway } = {}) {
    const urls = this.gatewayUrls();
    const base = gateway ?? urls[this.next++ % urls.length];
    const started = Date.now();
    const entry = { at: started, method, path: pathPattern(path), gateway: base, status: 0, ms: 0 };
    this.responses.push(entry);
    try {
      const res = await fetch(base + path, {
        method,
        headers: { 'x-api-key': this.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const text = await res.text();
      entry.status = res.status;
      entry.ms = Date.now() - started;
      if (res.status >= 500) entry.body = text.slice(0, 500);
      let parsed;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = text;
      }
      return { status: res.status, body: parsed };
    } catch (error) {
      entry.ms = Date.now() - started;
      entry.error = error.name === 'TimeoutError' ? `no answer within ${REQUEST_TIMEOUT_MS} ms` : connectionError(error);
      entry.timeout = error.name === 'TimeoutError';
      return { status: 0, error: entry.error };
    }
  }
}

function connectionError(error) {
  const cause = error.cause;
  return cause?.code ?? cause?.message ?? error.message;
}

/** Ids out of a path, so answers can be grouped by route. */
function pathPattern(path) {
  return path.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ':id').replace(/\?.*$/, '');
}

/**
 * Starts runs on the given agents from `loops` loops, one start every `pauseMs` per loop, each
 * with an Idempotency-Key of its own, retried (same key, next gateway) on 502/503/504 and on no
 * answer for up to `retryForMs`. A run is accepted when the final answer was a 201. Readers fetch
 * accepted runs and run lists meanwhile, so more of the API is exercised.
 */
export class RunLoad {
  constructor({ api, agents, loops = 3, pauseMs = 250, retryForMs = 45_000, readers = 1 }) {
    Object.assign(this, { api, agents, loops, pauseMs, retryForMs, readers });
    /** idempotency key -> { run_id, agent_id, at, attempts } */
    this.accepted = new Map();
    /** Starts whose final answer was not a 201: { key, agent_id, status, body, attempts }. */
    this.refused = [];
    this.attempts = 0;
    this.retries = 0;
    this.stopping = false;
    this.running = [];
  }

  start() {
    this.stopping = false;
    let n = 0;
    for (let i = 0; i < this.loops; i++) {
      this.running.push(
        (async () => {
          await sleep((i * this.pauseMs) / this.loops);
          while (!this.stopping) {
            await this.startOne(this.agents[n++ % this.agents.length]);
            await sleep(this.pauseMs);
          }
        })(),
      );
    }
    for (let i = 0; i < this.readers; i++) {
      this.running.push(
        (async () => {
          while (!this.stopping) {
            await this.readOne();
            await sleep(200);
          }
        })(),
      );
    }
  }

  /** Stops starting runs; resolves once the starts in flight have their final answer. */
  async stop() {
    this.stopping = true;
    await Promise.all(this.running);
    this.running = [];
  }

  async startOne(agentId) {
    const key = `fault-${randomUUID()}`;
    const until = Date.now() + this.retryForMs;
    for (let attempt = 1; ; attempt++) {
      this.attempts += 1;
      const res = await this.api.call('POST', `/v1/agents/${agentId}/runs`, {
        body: { user_message: 'fault test', skip_deploy_check: true },
        headers: { 'idempotency-key': key },
      });
      if (res.status === 201) {
        this.accepted.set(key, { run_id: res.body.run.run_id, agent_id: agentId, at: Date.now(), attempts: attempt });
        return;
      }
      if ((res.status === 0 || RETRIED.has(res.status)) && Date.now() < until) {
        this.retries += 1;
        await sleep(Math.min(250 * attempt, 1_000));
        continue;
      }
      this.refused.push({ key, agent_id: agentId, status: res.status, body: res.body ?? res.error, attempts: attempt });
      return;
    }
  }

  async readOne() {
    const accepted = [...this.accepted.values()];
    if (accepted.length === 0) return;
    const run = accepted[Math.floor(Math.random() * accepted.length)];
    if (Math.random() < 0.5) await this.api.call('GET', `/v1/agents/${run.agent_id}/runs/${run.run_id}`);
    else await this.api.call('GET', `/v1/agents/${run.agent_id}/runs?page_size=20`);
  }
}

/** A loopback webhook receiver that records every request and answers 204 after `holdMs`. */
export class WebhookReceiver {
  constructor(holdMs = 0) {
    this.holdMs = holdMs;
    /** { at, deliveryId, webhookId, event, runId, agentPath } */
    this.received = [];
  }

  async start() {
    this.server = createServer((req, res) => {
      const chunks = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        let body = {};
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          // recorded without event and run; counted as unexpected
        }
        this.received.push({
          at: Date.now(),
          deliveryId: String(req.headers['x-service-delivery']),
          webhookId: String(req.headers['webhook-id']),
          event: body.event,
          runId: body.data?.run_id,
          path: req.url,
        });
        setTimeout(() => res.writeHead(204).end(), this.holdMs);
      });
    });
    await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${this.server.address().port}`;
  }

  async close() {
    this.server?.closeAllConnections();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve()));
  }
}
