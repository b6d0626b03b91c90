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

const CLEANUP_QUEUES = [QueueNames.RunsEvents, QueueNames.SchedulerEvents, QueueNames.WebhooksEvents];
const EVERY_SECOND = '* * * * * ? *';
const LIFECYCLE = ['run.started', 'run.completed', 'run.failed', 'run.stopped', 'run.paused'];

/**
 * Deleting an agent: every endpoint of it answers 404 on every gateway as soon as DELETE has answered,
 * while the asynchronous cleanup is held back (its queues paused); and an id taken again, by the same
 * user or another, starts from nothing and loses nothing to the old agent's cleanup.
 */
describe('Deleting an agent is immediate, and its id taken again shares nothing', () => {
  let system: TestSystem;
  let connection: Redis;
  let cleanup: Queue[];
  let receiver: Receiver;
  let receiverUrl: string;
  let runsDb: Pool;
  let webhooksDb: Pool;
  let schedulerDb: Pool;
  let a: User;
  let b: User;

  beforeAll(async () => {
    system = await TestSystem.start({
      gateways: 2,
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: '200' },
      webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_DELAYS: '200ms' },
    });
    connection = new Redis(system.infra.redisUrl, { maxRetriesPerRequest: null });
    cleanup = CLEANUP_QUEUES.map((name) => new Queue(name, { connection, prefix: system.infra.redisPrefix }));
    receiver = new Receiver();
    receiverUrl = await receiver.start();
    runsDb = observerPool(system.infra.databaseUrl, 'runs');
    webhooksDb = observerPool(system.infra.databaseUrl, 'webhooks');
    schedulerDb = observerPool(system.infra.databaseUrl, 'scheduler');
    a = await freshUser(system, 'deleter-a');
    b = await freshUser(system, 'deleter-b');
  });
  afterAll(async () => {
    await Promise.all(cleanup.map((q) => q.close()));
    connection.disconnect();
    await receiver.close();
    await Promise.all([runsDb.end(), webhooksDb.end(), schedulerDb.end()]);
    await system.stop();
  });

  const call = (user: User, method: string, path: string, body?: unknown, gateway = 0) => http(system.url(gateway), method, path, { key: user.key, body });
  const holdCleanup = () => Promise.all(cleanup.map((q) => q.pause()));
  const releaseCleanup = () => Promise.all(cleanup.map((q) => q.resume()));
  const rows = async (db: Pool, sql: string, params: unknown[]) => Number((await db.query(sql, params)).rows[0].n);

  /** An agent (with this id, when given) that is deployed, runs `steps` steps per run, and has a webhook to `hook`. */
  async function deployedAgent(user: User, hook: string, agentId?: string, steps = 200): Promise<{ agentId: string; webhookId: string }> {
    const created = await call(user, 'POST', '/v1/agents', agentId ? { agent_id: agentId } : {});
    expect(created.status).toBe(201);
    const id = created.body.agent.agent_id as string;
    const plan_steps = Array.from({ length: steps }, (_, order) => ({ title: `s${order}`, description: '', tools: [], order }));
    const webhook = await call(user, 'POST', `/v1/agents/${id}/webhooks`, { url: `${receiverUrl}/${hook}`, events: LIFECYCLE });
    expect(webhook.status).toBe(201);
    await call(user, 'PUT', `/v1/agents/${id}/instructions`, { content: 'c', plan_steps: plan_steps.slice(0, 1) });
    expect((await call(user, 'POST', `/v1/agents/${id}/runs`, { run_mode: 'build' })).status).toBe(201);
    await eventually('the build to deploy the agent', async () => (await call(user, 'GET', `/v1/agents/${id}`)).body.agent.deployment_state, (s) => s === 'deployed');
    await call(user, 'PUT', `/v1/agents/${id}/instructions`, { content: 'c', plan_steps });
    return { agentId: id, webhookId: webhook.body.webhook_id };
  }

  async function runningRun(user: User, agentId: string): Promise<string> {
    const runId = (await call(user, 'POST', `/v1/agents/${agentId}/runs`, {})).body.run.run_id as string;
    await eventually('the run to execute', async () => (await call(user, 'GET', `/v1/agents/${agentId}/runs/${runId}`)).body.run.event_count, (n) => n >= 2);
    return runId;
  }

  const deliveredRuns = (hook: string) =>
    receiver.received.filter((r) => r.path === `/${hook}`).map((r) => (JSON.parse(r.body) as { data: { run_id: string } }).data.run_id);

  it('answers 404 on every endpoint of the agent and its runs, on every gateway, as soon as DELETE has answered', async () => {
    const { agentId, webhookId } = await deployedAgent(a, 'doomed');
    const runId = await runningRun(a, agentId);
    expect((await call(a, 'PUT', `/v1/agents/${agentId}/schedule`, { cron: '0 0 0 1 1 ? 2099' })).status).toBe(200);
    const deliveryId = await eventually(
      'a delivery',
      async () => (await call(a, 'GET', `/v1/agents/${agentId}/webhooks/${webhookId}/deliveries`)).body.deliveries?.[0]?.delivery_id,
      (id) => typeof id === 'string',
    );
    await holdCleanup();
    try {
      expect((await call(a, 'DELETE', `/v1/agents/${agentId}`, undefined, 0)).status).toBe(204);
      const agent = `/v1/agents/${agentId}`;
      const run = `${agent}/runs/${runId}`;
      const hook = `${agent}/webhooks/${webhookId}`;
      const endpoints: Array<[string, string, unknown?]> = [
        ['GET', agent],
        ['POST', `${agent}/move`, { workspace_id: agentId }],
        ['GET', `${agent}/runs`],
        ['POST', `${agent}/runs`, {}],
        ['GET', run],
        ['GET', `${run}/events`],
        ['GET', `${run}/events/stream`],
        ['POST', `${run}/cancel`, {}],
        ['DELETE', run],
        ['GET', `${agent}/schedule`],
        ['PUT', `${agent}/schedule`, { cron: EVERY_SECOND }],
        ['POST', `${agent}/schedule/pause`],
        ['POST', `${agent}/schedule/resume`],
        ['POST', `${agent}/schedule/backfill`, { from: '2020-01-01T00:00:00Z', to: '2020-01-02T00:00:00Z' }],
        ['DELETE', `${agent}/schedule`],
        ['GET', `${agent}/webhooks`],
        ['POST', `${agent}/webhooks`, { url: `${receiverUrl}/late`, events: ['run.started'] }],
        ['GET', hook],
        ['PATCH', hook, { status: 'disabled' }],
        ['GET', `${hook}/deliveries`],
        ['POST', `${hook}/deliveries/${deliveryId}/redeliver`],
        ['DELETE', hook],
        ['GET', `${agent}/instructions`],
        ['PUT', `${agent}/instructions`, { content: 'late' }],
        ['GET', `${agent}/instructions/history`],
      ];
      for (const gateway of [1, 0]) {
        for (const [method, path, body] of endpoints) {
          const answer = await call(a, method, path, body, gateway);
          if (answer.status !== 404) throw new Error(`${method} ${path} on gateway ${gateway} answered ${answer.status}`);
          expectProblem(answer, 404);
        }
      }
      const listed = (await call(a, 'GET', '/v1/schedules', undefined, 1)).body.schedules.map((s: { agent_id: string }) => s.agent_id);
      expect(listed).not.toContain(agentId);
      // All of it is still stored: the cleanup has not run.
      expect(await rows(runsDb, 'SELECT count(*) AS n FROM runs WHERE agent_id = $1', [agentId])).toBeGreaterThan(0);
      expect(await rows(webhooksDb, 'SELECT count(*) AS n FROM webhooks WHERE agent_id = $1', [agentId])).toBe(1);
      expect(await rows(schedulerDb, 'SELECT count(*) AS n FROM schedules WHERE agent_id = $1', [agentId])).toBe(1);
    } finally {
      await releaseCleanup();
    }
    await eventually('the cleanup', () => rows(runsDb, 'SELECT count(*) AS n FROM runs WHERE agent_id = $1', [agentId]), (n) => n === 0);
    await eventually('the webhook cleanup', () => rows(webhooksDb, 'SELECT count(*) AS n FROM webhooks WHERE agent_id = $1', [agentId]), (n) => n === 0);
    await eventually('the schedule cleanup', () => rows(schedulerDb, 'SELECT count(*) AS n FROM schedules WHERE agent_id = $1', [agentId]), (n) => n === 0);
  }, 60_000);

  /**
   * Deletes an agent whose run executes and whose schedule fires, with its cleanup held back; `taker` creates
   * the same id at once. The new agent starts from nothing, hears nothing of the old one, and loses nothing
   * when the old agent's cleanup finally runs.
   */
  async function takeOver(owner: User, taker: User, label: string): Promise<void> {
    const old = await deployedAgent(owner, `${label}-old`, undefined, 12);
    const oldRun = await runningRun(owner, old.agentId);
    expect((await call(owner, 'PUT', `/v1/agents/${old.agentId}/schedule`, { cron: EVERY_SECOND, overlap: 'allow' })).status).toBe(200);
    await eventually('the old schedule to fire', async () => (await call(owner, 'GET', `/v1/agents/${old.agentId}/runs`)).body.total_runs, (n) => n >= 3);
    const [runsCleanup, schedulerCleanup, webhooksCleanup] = cleanup;
    await holdCleanup();
    expect((await call(owner, 'DELETE', `/v1/agents/${old.agentId}`)).status).toBe(204);
    expect((await call(taker, 'POST', '/v1/agents', { agent_id: old.agentId })).status).toBe(201);
    const agent = `/v1/agents/${old.agentId}`;
    const webhook = await call(taker, 'POST', `${agent}/webhooks`, { url: `${receiverUrl}/${label}-new`, events: LIFECYCLE });
    expect(webhook.status).toBe(201);
    // Nothing of the old agent shows, although all of it is still stored and its run still executes.
    expectProblem(await call(taker, 'GET', `${agent}/runs/${oldRun}`), 404);
    expectProblem(await call(taker, 'GET', `${agent}/runs/${oldRun}/events/stream`), 404);
    expectProblem(await call(taker, 'GET', `${agent}/webhooks/${old.webhookId}`), 404);
    expect((await call(taker, 'GET', `${agent}/schedule`)).body).toEqual({ schedule: null });
    expect((await call(taker, 'GET', `${agent}/webhooks`)).body.webhooks.map((w: { webhook_id: string }) => w.webhook_id)).toEqual([webhook.body.webhook_id]);
    expect((await call(taker, 'GET', `${agent}/instructions`)).body.instructions).toBeNull();

    // The old run ends; its lifecycle and progress events reach webhook-delivery and agents-service behind the old
    // agent's deletion, whose webhook cleanup must leave the new webhook alone.
    await eventually('the old run to finish', () => rows(runsDb, 'SELECT count(*) AS n FROM runs WHERE id = $1 AND is_finished', [oldRun]), (n) => n === 1);
    await webhooksCleanup.resume();
    await eventually('the webhook events to be handled', () => webhooksCleanup.count(), (n) => n === 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(deliveredRuns(`${label}-new`)).toEqual([]);
    expect(deliveredRuns(`${label}-old`)).toContain(oldRun);
    expect(await rows(webhooksDb, 'SELECT count(*) AS n FROM webhooks WHERE id = $1', [webhook.body.webhook_id])).toBe(1);
    expect(await rows(webhooksDb, 'SELECT count(*) AS n FROM webhooks WHERE id = $1', [old.webhookId])).toBe(0);
    const untouched = (await call(taker, 'GET', agent)).body.agent;
    expect(untouched).toMatchObject({ has_runs: false, latest_run_id: '', deployment_state: 'not_deployed' });

    // The new agent's own runs are numbered from 1; the old schedule's fires start none of them.
    const plan_steps = [{ title: 'only', description: '', tools: [], order: 0 }];
    await call(taker, 'PUT', `${agent}/instructions`, { content: 'new', plan_steps });
    expect((await call(taker, 'POST', `${agent}/runs`, { run_mode: 'build' })).status).toBe(201);
    await eventually('the new agent to deploy', async () => (await call(taker, 'GET', agent)).body.agent.deployment_state, (s) => s === 'deployed');
    expect((await call(taker, 'PUT', `${agent}/schedule`, { cron: '0 0 0 1 1 ? 2099' })).status).toBe(200);
    const started = await call(taker, 'POST', `${agent}/runs`, {});
    await eventually('the new run to finish', async () => (await call(taker, 'GET', `${agent}/runs/${started.body.run.run_id}`)).body.run.is_finished, (f) => f === true);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const list = (await call(taker, 'GET', `${agent}/runs`)).body;
    const newRuns: string[] = list.runs.map((r: { run_id: string }) => r.run_id);
    expect(list.total_runs).toBe(2);
    expect(list.runs.map((r: { run_number: number }) => r.run_number).sort()).toEqual([1, 2]);
    expect(list.runs.map((r: { run_kind: string }) => r.run_kind)).not.toContain('schedule');
    expect(newRuns).toContain((await call(taker, 'GET', agent)).body.agent.latest_run_id);
    expect(deliveredRuns(`${label}-new`).length).toBeGreaterThan(0);
    expect(deliveredRuns(`${label}-new`).every((id) => newRuns.includes(id))).toBe(true);

    // The rest of the old agent's cleanup runs and removes nothing of the new one.
    await Promise.all([runsCleanup.resume(), schedulerCleanup.resume()]);
    await eventually('the cleanup queues to drain', async () => (await Promise.all(cleanup.map((q) => q.count()))).reduce((x, y) => x + y, 0), (n) => n === 0);
    await eventually('the old runs to go', () => rows(runsDb, 'SELECT count(*) AS n FROM runs WHERE id = $1', [oldRun]), (n) => n === 0);
    expect((await call(taker, 'GET', `${agent}/runs`)).body.runs.map((r: { run_id: string }) => r.run_id).sort()).toEqual([...newRuns].sort());
    expect((await call(taker, 'GET', `${agent}/webhooks`)).body.webhooks).toHaveLength(1);
    expect((await call(taker, 'GET', `${agent}/schedule`)).body.schedule).toMatchObject({ cron: '0 0 0 1 1 ? 2099' });
    expect((await call(taker, 'GET', `${agent}/instructions`)).body.instructions).toMatchObject({ content: 'new' });
    if (owner !== taker) expectProblem(await call(owner, 'GET', `${agent}/runs`), 404);
  }

  it('the same user recreating the id while the old run executes and its schedule fires sees none of it, and loses nothing to its cleanup', async () => {
    await takeOver(a, a, 'same');
  }, 90_000);

  it('another user taking the id is not touched by the first user’s deletion', async () => {
    await takeOver(a, b, 'other');
  }, 90_000);
});
