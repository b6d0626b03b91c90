import { ServiceClient } from '@aas/platform';
import Redis from 'ioredis';
import { connect } from 'node:net';
import { ConsoleSessionsService } from '../apps/agents-service/src/console-sessions/console-sessions.service';
import { RunEventStreams } from '../apps/api-gateway/src/runs/streams/run-event-streams';
import { consoleLogin } from './support/console-session';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { TEST_REDIS_URL, observerPool } from './support/isolated-infra';
import { SseStream } from './support/sse';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';

const STEP_MS = 250;
const CAP = 3;

describe('Live run event streams: pushed, capped, bounded, ended by revocation', () => {
  let system: TestSystem;
  let redis: Redis;
  let a: User;
  let b: User;

  beforeAll(async () => {
    system = await TestSystem.start({
      gateways: 2,
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: String(STEP_MS) },
      // No periodic check within a test: what a stream gets, it gets by push (or by the resync after a lost connection).
      gatewayEnv: { STREAMS_PER_USER: String(CAP), STREAM_CHECK_INTERVAL_MS: '600000', STREAM_BUFFER_BYTES: String(64 * 1024) },
    });
    redis = new Redis(TEST_REDIS_URL);
    a = await freshUser(system, 'streamer-a');
    b = await freshUser(system, 'streamer-b');
  });
  afterAll(async () => {
    redis.disconnect();
    await system.stop();
  });

  async function agentWithSteps(user: User, steps: number): Promise<string> {
    const agentId = (await http(system.url(), 'POST', '/v1/agents', { key: user.key, body: {} })).body.agent.agent_id;
    const plan_steps = Array.from({ length: steps }, (_, order) => ({ title: `s${order}`, description: '', tools: [], order }));
    await http(system.url(), 'PUT', `/v1/agents/${agentId}/instructions`, { key: user.key, body: { content: 'c', plan_steps } });
    return agentId;
  }

  async function startRun(user: User, steps: number): Promise<{ agentId: string; runId: string; path: string }> {
    const agentId = await agentWithSteps(user, steps);
    const started = await http(system.url(), 'POST', `/v1/agents/${agentId}/runs`, { key: user.key, body: { skip_deploy_check: true } });
    expect(started.status).toBe(201);
    const runId = started.body.run.run_id;
    return { agentId, runId, path: `/v1/agents/${agentId}/runs/${runId}/events/stream` };
  }

  const open = (user: User | string, path: string, gateway = 0, headers: Record<string, string> = {}) =>
    SseStream.open(system.url(gateway) + path, { 'x-api-key': typeof user === 'string' ? user : user.key, ...headers });

  async function recorded(user: User, agentId: string, runId: string): Promise<unknown[]> {
    return (await http(system.url(), 'GET', `/v1/agents/${agentId}/runs/${runId}/events`, { key: user.key })).body.events;
  }

  it('pushes every event once and in order, without asking runs-service anything while the run goes on', async () => {
    const { agentId, runId, path } = await startRun(a, 6);
    const requests = jest.spyOn(system.gateways[1].get(ServiceClient), 'request');
    try {
      const stream = await open(a, path, 1);
      expect(stream.status).toBe(200);
      const afterOpen = requests.mock.calls.length;
      await stream.done;
      // Opening reads the run and its backlog once; everything after came by push.
      expect(requests.mock.calls.length).toBe(afterOpen);
      expect(stream.finished).toBe(true);
      expect(stream.runEvents.map((e) => e.index)).toEqual(stream.runEvents.map((_, i) => i));
      expect(stream.runEvents.map((e) => e.data)).toEqual(await recorded(a, agentId, runId));
      expect(stream.runEvents.length).toBeGreaterThanOrEqual(8);
    } finally {
      requests.mockRestore();
    }
  });

  it('reads back what was pushed while its Redis subscription was down: nothing skipped, nothing repeated', async () => {
    const { agentId, runId, path } = await startRun(a, 10);
    const stream = await open(a, path, 0);
    await stream.until('two events', (s) => s.runEvents.length >= 2);
    const clients = String(await redis.client('LIST'))
      .split('\n')
      .filter((line) => line.includes(` name=${system.infra.redisPrefix}:gateway:run-events `))
      .map((line) => /\bid=(\d+)/.exec(line)![1]);
    expect(clients).toHaveLength(2);
    for (const id of clients) await redis.client('KILL', 'ID', id);
    await stream.done;
    expect(stream.finished).toBe(true);
    expect(stream.runEvents.map((e) => e.index)).toEqual(stream.runEvents.map((_, i) => i));
    expect(stream.runEvents.map((e) => e.data)).toEqual(await recorded(a, agentId, runId));
  });

  it('refuses a stream on another user’s run as not found', async () => {
    const { path } = await startRun(a, 1);
    expectProblem(await http(system.url(1), 'GET', path, { key: b.key }), 404);
  });

  it('caps a user’s open streams across gateways with a 429, and does not stop another user’s', async () => {
    const runs = await Promise.all([startRun(a, 200), startRun(a, 200), startRun(b, 200)]);
    const held = [await open(a, runs[0].path, 0), await open(a, runs[1].path, 1), await open(a, runs[0].path, 1)];
    expect(held.map((s) => s.status)).toEqual([200, 200, 200]);
    for (const gateway of [0, 1]) {
      const refused = await http(system.url(gateway), 'GET', runs[1].path, { key: a.key });
      expectProblem(refused, 429);
      expect(refused.body.detail).toContain(`${CAP} open event streams`);
    }
    const theirs = await open(b, runs[2].path, 0);
    expect(theirs.status).toBe(200);
    // Closing one frees its slot.
    held[0].close();
    const reopened = await eventually(
      'a freed slot',
      async () => {
        const attempt = await open(a, runs[1].path, 1);
        if (attempt.status !== 200) await attempt.done;
        return attempt;
      },
      (s) => s.status === 200,
    );
    for (const s of [...held, theirs, reopened]) s.close();
    for (const run of runs) await http(system.url(), 'POST', `/v1/agents/${run.agentId}/runs/${run.runId}/cancel`, { key: run === runs[2] ? b.key : a.key, body: {} });
  });

  it('disconnects a client that does not read, and frees its slot; a reading client gets the whole backlog', async () => {
    const { agentId, runId, path } = await startRun(a, 1);
    await eventually('the run to finish', async () => (await http(system.url(), 'GET', `/v1/agents/${agentId}/runs/${runId}`, { key: a.key })).body.run.is_finished, (f) => f === true);
    // A backlog far larger than the socket buffers (up to 36 MiB on loopback here): 6,000 events of 16 KiB behind the run's last one.
    const runsDb = observerPool(system.infra.databaseUrl, 'runs');
    try {
      await runsDb.query(
        `WITH last AS (SELECT event_count FROM runs WHERE id = $1)
         INSERT INTO run_events (run_id, event_index, recorded_at, event)
         SELECT $1, last.event_count + i, now(), jsonb_build_object('note', jsonb_build_object('text', repeat('x', 16384))) FROM last, generate_series(0, 5999) i`,
        [runId],
      );
      await runsDb.query('UPDATE runs SET event_count = event_count + 6000 WHERE id = $1', [runId]);
    } finally {
      await runsDb.end();
    }
    const streams = system.gateways[0].get(RunEventStreams);
    const before = streams.openStreams;
    const port = new URL(system.url(0)).port;
    const socket = connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${a.key}\r\n\r\n`);
    socket.pause(); // never reads
    await eventually('the stream to open', () => streams.openStreams, (n) => n === before + 1);
    await eventually('the gateway to give up on the client', () => streams.openStreams, (n) => n === before, 45_000);
    socket.destroy();

    const reader = await open(a, path, 0);
    await reader.done;
    expect(reader.finished).toBe(true);
    expect(reader.runEvents.map((e) => e.index)).toEqual(reader.runEvents.map((_, i) => i));
    expect(reader.runEvents.length).toBeGreaterThan(6000);
  }, 120_000);

  it('ends the streams of a revoked key within 2 s on every gateway, and only those', async () => {
    const second = await http(system.url(), 'POST', '/api/public/v1/access-api-keys', { key: a.key, body: { name: 'to revoke' } });
    const run = await startRun(a, 200);
    const revokedStreams = [await open(second.body.api_key, run.path, 0), await open(second.body.api_key, run.path, 1)];
    const kept = await open(a, run.path, 1);
    expect([...revokedStreams, kept].map((s) => s.status)).toEqual([200, 200, 200]);
    const revokedAt = Date.now();
    expect((await http(system.url(0), 'DELETE', `/api/public/v1/access-api-keys/${second.body.key_id}`, { key: a.key })).status).toBe(200);
    await Promise.all(revokedStreams.map((s) => s.done));
    for (const s of revokedStreams) {
      expect(s.endedAt! - revokedAt).toBeLessThan(2000);
      expect(s.finished).toBe(false);
    }
    expect(kept.endedAt).toBeUndefined();
    expectProblem(await http(system.url(1), 'GET', run.path, { key: second.body.api_key }), 401);
    kept.close();
    await http(system.url(), 'POST', `/v1/agents/${run.agentId}/runs/${run.runId}/cancel`, { key: a.key, body: {} });
  });

  it('ends a console session’s streams when it signs out, and when its password is reset', async () => {
    const sessions = system.agents[0].get(ConsoleSessionsService);
    await sessions.setPassword(a.email, 'a long enough password');
    const run = await startRun(a, 200);
    const headersOf = (s: { cookie: string; csrf: string }) => ({ cookie: s.cookie, 'x-csrf-token': s.csrf });

    const first = await consoleLogin(system.url(0), a.email, 'a long enough password');
    const stream = await SseStream.open(system.url(1) + run.path, headersOf(first));
    expect(stream.status).toBe(200);
    const endedAt = Date.now();
    expect((await http(system.url(0), 'POST', '/v1/console/logout', { headers: headersOf(first) })).status).toBe(204);
    await stream.done;
    expect(stream.endedAt! - endedAt).toBeLessThan(2000);

    const second = await consoleLogin(system.url(0), a.email, 'a long enough password');
    const again = await SseStream.open(system.url(0) + run.path, headersOf(second));
    expect(again.status).toBe(200);
    const resetAt = Date.now();
    await sessions.setPassword(a.email, 'another long password');
    await again.done;
    expect(again.endedAt! - resetAt).toBeLessThan(2000);
    await http(system.url(), 'POST', `/v1/agents/${run.agentId}/runs/${run.runId}/cancel`, { key: a.key, body: {} });
  });

  it('ends the streams of an agent when it is deleted; its run is then a 404', async () => {
    const run = await startRun(a, 200);
    const stream = await open(a, run.path, 1);
    expect(stream.status).toBe(200);
    const deletedAt = Date.now();
    expect((await http(system.url(0), 'DELETE', `/v1/agents/${run.agentId}`, { key: a.key })).status).toBe(204);
    await stream.done;
    expect(stream.endedAt! - deletedAt).toBeLessThan(2000);
    expectProblem(await http(system.url(1), 'GET', run.path, { key: a.key }), 404);
  });
});
