import { QueueNames } from '@aas/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { eventually } from './support/eventually';
import { expectProblem, http } from './support/http';
import { observerPool } from './support/isolated-infra';
import { TestSystem } from './support/test-system';
import { User, freshUser } from './support/test-users';
import { Receiver } from './support/webhook-receiver';

const LIFECYCLE = ['run.started', 'run.completed'];

/**
 * Retention (docs/retention.md): finished runs past their workspace's retention (or RUN_RETENTION_DAYS) go
 * with their events and webhook deliveries, in batches, while the API keeps answering; nothing else goes,
 * another user's runs least of all. DELETE /v1/runs deletes the caller's finished runs a filter matches.
 * Time passes by writing finished_at back in the runs schema.
 */
describe('Retention of finished runs, and deleting runs by filter', () => {
  let system: TestSystem;
  let receiver: Receiver;
  let receiverUrl: string;
  let runsDb: Pool;
  let webhooksDb: Pool;
  let connection: Redis;
  let maintenance: Queue;
  let a: User;
  let b: User;

  beforeAll(async () => {
    system = await TestSystem.start({
      // Batches of 3 with a pause, every second: a purge of these runs takes several transactions.
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: '5', RUN_PURGE_INTERVAL_MS: '1000', RUN_PURGE_BATCH_SIZE: '3', RUN_PURGE_PAUSE_MS: '20' },
      webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    runsDb = observerPool(system.infra.databaseUrl, 'runs');
    webhooksDb = observerPool(system.infra.databaseUrl, 'webhooks');
    connection = new Redis(system.infra.redisUrl, { maxRetriesPerRequest: null });
    maintenance = new Queue(QueueNames.RunsMaintenance, { connection, prefix: system.infra.redisPrefix });
    a = await freshUser(system, 'retention-a');
    b = await freshUser(system, 'retention-b');
  });
  // A test that failed while the purge was held must not hold it for the next.
  afterEach(() => maintenance.resume());
  afterAll(async () => {
    await maintenance.close();
    connection.disconnect();
    await receiver.close();
    await Promise.all([runsDb.end(), webhooksDb.end()]);
    await system.stop();
  });

  const call = (user: User, method: string, path: string, body?: unknown) => http(system.url(), method, path, { key: user.key, body });
  const count = async (db: Pool, sql: string, params: unknown[]) => Number((await db.query(sql, params)).rows[0].n);
  const runsLeft = (ids: string[]) => count(runsDb, 'SELECT count(*) AS n FROM runs WHERE id = ANY($1::uuid[])', [ids]);
  const eventsLeft = (ids: string[]) => count(runsDb, 'SELECT count(*) AS n FROM run_events WHERE run_id = ANY($1::uuid[])', [ids]);
  const deliveriesLeft = (ids: string[]) => count(webhooksDb, 'SELECT count(*) AS n FROM deliveries WHERE run_id = ANY($1::uuid[])', [ids]);
  const attemptsLeft = (ids: string[]) =>
    count(webhooksDb, 'SELECT count(*) AS n FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id WHERE d.run_id = ANY($1::uuid[])', [ids]);
  /** Time passes for these runs: they finished `days` days ago. */
  const finishedDaysAgo = (ids: string[], days: number) =>
    runsDb.query(`UPDATE runs SET finished_at = now() - make_interval(days => $2) WHERE id = ANY($1::uuid[])`, [ids, days]);

  /** A deployed agent of the user (in this workspace), whose runs take one step, with a webhook on run.started and run.completed. */
  async function deployedAgent(user: User, workspaceId?: string): Promise<string> {
    const created = await call(user, 'POST', '/v1/agents', workspaceId ? { workspace_id: workspaceId } : {});
    expect(created.status).toBe(201);
    const id = created.body.agent.agent_id as string;
    expect((await call(user, 'POST', `/v1/agents/${id}/webhooks`, { url: `${receiverUrl}/${id}`, events: LIFECYCLE })).status).toBe(201);
    await call(user, 'PUT', `/v1/agents/${id}/instructions`, { content: 'c', plan_steps: [{ title: 's', description: '', tools: [], order: 0 }] });
    expect((await call(user, 'POST', `/v1/agents/${id}/runs`, { run_mode: 'build' })).status).toBe(201);
    await eventually('the build to deploy the agent', async () => (await call(user, 'GET', `/v1/agents/${id}`)).body.agent.deployment_state, (s) => s === 'deployed');
    return id;
  }

  /** `n` finished runs of the agent, each with its two deliveries answered. */
  async function finishedRuns(user: User, agentId: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await call(user, 'POST', `/v1/agents/${agentId}/runs`, {})).body.run.run_id);
    await eventually('the runs to finish', () => count(runsDb, 'SELECT count(*) AS n FROM runs WHERE id = ANY($1::uuid[]) AND is_finished', [ids]), (k) => k === n);
    await eventually('their deliveries to be attempted', () => attemptsLeft(ids), (k) => k === 2 * n);
    return ids;
  }

  it('purges exactly the runs past their retention, with their events and delivery attempts, while GET requests keep answering', async () => {
    await maintenance.pause(); // time is set back for all of them before any purge looks
    const week = (await call(a, 'POST', '/v1/workspaces', { name: 'one day' })).body.workspace;
    const oneDay = await call(a, 'PUT', `/v1/workspaces/${week.workspace_id}`, { name: 'one day', run_retention_days: 1 });
    expect(oneDay.body.workspace.run_retention_days).toBe(1);
    const [short, usual, other] = [await deployedAgent(a, week.workspace_id), await deployedAgent(a), await deployedAgent(b)];
    const shortRuns = await finishedRuns(a, short, 10);
    const usualRuns = await finishedRuns(a, usual, 6);
    const otherRuns = await finishedRuns(b, other, 4);

    const due = [...shortRuns.slice(0, 7), ...usualRuns.slice(0, 2)];
    const kept = [...shortRuns.slice(7), ...usualRuns.slice(2), ...otherRuns];
    await finishedDaysAgo(shortRuns.slice(0, 7), 2); // past the workspace's day
    await finishedDaysAgo(usualRuns.slice(0, 2), 31); // past the installation's 30 days
    await finishedDaysAgo(usualRuns.slice(2), 2); // within them
    await finishedDaysAgo(otherRuns, 29); // another user's, within them
    const eventsKept = await eventsLeft(kept);
    expect(await eventsLeft(due)).toBeGreaterThan(0);

    // Readers all along the purge: every answer a 200 (a due run's a 200 or, once gone, a 404).
    let reading = true;
    const statuses: number[] = [];
    const readers = [a, b].map(async (user) => {
      const [agentId, runIds] = user === a ? [short, shortRuns] : [other, otherRuns];
      for (let i = 0; reading; i++) {
        statuses.push((await call(user, 'GET', `/v1/agents/${agentId}/runs/${runIds[runIds.length - 1]}`)).status);
        statuses.push((await call(user, 'GET', `/v1/agents/${agentId}/runs?page_size=5`)).status);
        if (user === a) {
          const s = (await call(a, 'GET', `/v1/agents/${short}/runs/${runIds[i % 7]}`)).status;
          expect([200, 404]).toContain(s);
        }
      }
    });
    await maintenance.resume();
    try {
      await eventually('the due runs to be purged', () => runsLeft(due), (n) => n === 0);
      await eventually('their deliveries to be deleted', () => deliveriesLeft(due), (n) => n === 0);
    } finally {
      reading = false;
      await Promise.all(readers);
    }

    expect(statuses.length).toBeGreaterThanOrEqual(4);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await eventsLeft(due)).toBe(0);
    expect(await attemptsLeft(due)).toBe(0);
    expect(await runsLeft(kept)).toBe(kept.length);
    expect(await eventsLeft(kept)).toBe(eventsKept);
    expect(await attemptsLeft(kept)).toBe(2 * kept.length);
    for (const runId of due.slice(0, 2)) expectProblem(await call(a, 'GET', `/v1/agents/${short}/runs/${runId}`), 404);
    // The list and its total agree with what is left: 3 of the 10 runs, and the build run.
    const listed = await call(a, 'GET', `/v1/agents/${short}/runs?page_size=50`);
    expect(listed.body.total_runs).toBe(4);
    expect(listed.body.runs.map((r: { run_id: string }) => r.run_id)).toEqual(expect.arrayContaining(shortRuns.slice(7)));
  });

  it('DELETE /v1/runs deletes the finished runs the filters match, of the caller only, one deletion at a time', async () => {
    const [mine, theirs] = [await deployedAgent(a), await deployedAgent(b)];
    const mineRuns = await finishedRuns(a, mine, 5);
    const theirRuns = await finishedRuns(b, theirs, 3);

    // Another user's agent in the filter matches nothing, and nothing of it goes.
    const stranger = await call(b, 'DELETE', `/v1/runs?filter_agent_id=${mine}`);
    expect(stranger.status).toBe(202);
    expect(stranger.body).toEqual({ matched_runs: 0 });

    await maintenance.pause(); // the deletion stays in progress until resumed
    try {
      await deletionHeld(mine, theirs);
    } finally {
      await maintenance.resume();
    }

    await eventually('the matched runs to be deleted', () => runsLeft(mineRuns), (n) => n === 0);
    await eventually('their deliveries to be deleted', () => deliveriesLeft(mineRuns), (n) => n === 0);
    expect(await runsLeft(theirRuns)).toBe(theirRuns.length);
    expect(await attemptsLeft(theirRuns)).toBe(2 * theirRuns.length);
    // The build run was not matched (filter_policy_group=runner), and the caller may delete again once done.
    expect((await call(a, 'GET', `/v1/agents/${mine}/runs`)).body.total_runs).toBe(1);
    await eventually('the deletion to be done', async () => (await call(a, 'DELETE', `/v1/runs?filter_agent_id=${mine}`)).status, (s) => s === 202);
  });

  it("DELETE of one run takes its deliveries and their attempts too, and nobody else's", async () => {
    const [mine, theirs] = [await deployedAgent(a), await deployedAgent(b)];
    const [gone, kept] = await finishedRuns(a, mine, 2);
    const [theirRun] = await finishedRuns(b, theirs, 1);
    expect((await call(b, 'DELETE', `/v1/agents/${mine}/runs/${gone}`)).status).toBe(404);
    expect((await call(a, 'DELETE', `/v1/agents/${mine}/runs/${gone}`)).status).toBe(204);
    await eventually('its deliveries to be deleted', () => deliveriesLeft([gone]), (n) => n === 0);
    expect([await attemptsLeft([gone]), await attemptsLeft([kept]), await attemptsLeft([theirRun])]).toEqual([0, 2, 2]);
  });

  /** While the purge is held: the deletion is accepted, a second one of the same user refused, another user's accepted. */
  async function deletionHeld(mine: string, theirs: string): Promise<void> {
    const accepted = await call(a, 'DELETE', `/v1/runs?filter_agent_id=${mine}&filter_policy_group=runner`);
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ matched_runs: 5 });
    const again = await call(a, 'DELETE', `/v1/runs?filter_agent_id=${mine}`);
    expectProblem(again, 429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    // One user's deletion in progress holds nobody else's back.
    const otherUsers = await call(b, 'DELETE', `/v1/runs?filter_agent_id=${theirs}&filter_status=error`);
    expect(otherUsers.status).toBe(202);
  }

  it('never deletes a run that is not finished', async () => {
    const agentId = await deployedAgent(a);
    const steps = Array.from({ length: 2000 }, (_, order) => ({ title: `s${order}`, description: '', tools: [], order }));
    await call(a, 'PUT', `/v1/agents/${agentId}/instructions`, { content: 'c', plan_steps: steps });
    const running = (await call(a, 'POST', `/v1/agents/${agentId}/runs`, {})).body.run.run_id;
    const res = await call(a, 'DELETE', `/v1/runs?filter_agent_id=${agentId}&filter_run_id=${running}`);
    expect(res.body).toEqual({ matched_runs: 0 });
    expect((await call(a, 'GET', `/v1/agents/${agentId}/runs/${running}`)).status).toBe(200);
    await call(a, 'POST', `/v1/agents/${agentId}/runs/${running}/cancel`, {});
  });

  it.each([
    ['an unknown status', 'filter_status=done'],
    ['paging, which a deletion has none of', 'page=2'],
    ['an agent id that is no UUID', 'filter_agent_id=abc'],
  ])('answers 400 for %s', async (_, query) => {
    expectProblem(await call(a, 'DELETE', `/v1/runs?${query}`), 400);
  });
});
