import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { INestApplication } from '@nestjs/common';
import { QueueNames } from '@aas/contracts';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { startSchedulerService } from '../apps/scheduler-service/src/scheduler-service.app';
import { expectProblem, http } from './support/http';
import { TestSystem } from './support/test-system';
import { eventually } from './support/eventually';

const KEY = 'schedules-bootstrap-key-0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Schedules through the gateway', () => {
  let system: TestSystem;
  let base: string;

  beforeAll(async () => {
    system = await TestSystem.start({ bootstrapApiKey: KEY, runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' } });
    base = system.url();
  });
  afterAll(() => system.stop());

  async function deployedAgent(url = base): Promise<string> {
    const agentId = (await http(url, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    await http(url, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { run_mode: 'build' } });
    await eventually(
      'the agent deployed',
      async () => (await http(url, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent.deployment_state,
      (state) => state === 'deployed',
      15_000,
    );
    return agentId;
  }

  const scheduledRuns = async (agentId: string, url = base) =>
    (await http(url, 'GET', `/v1/agents/${agentId}/runs?page_size=1000`, { key: KEY })).body.runs.filter(
      (r: { run_kind: string }) => r.run_kind === 'schedule',
    );

  it('refuses an undeployed agent and bad expressions with a 400 saying why', async () => {
    const undeployed = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    expectProblem(await http(base, 'PUT', `/v1/agents/${undeployed}/schedule`, { key: KEY, body: { cron: '0 * * * * ? *' } }), 400);
    const agentId = await deployedAgent();
    const put = (body: object) => http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body });
    for (const [body, why] of [
      [{ cron: '* * * * *' }, /field/i],
      [{ cron: '0 * * * * *' }, /field/i],
      [{ cron: 'every day' }, /./],
      [{ cron: '0 0 ? * * * *' }, /\?/],
      [{ cron: '0 0 0 1 1 ? 2020' }, /never/i],
      [{ cron: '0 * * * * ? *', timezone: 'Mars/Olympus' }, /timezone/i],
      [{}, /cron/],
      [{ cron: '0 * * * * ? *', overlap: 'sometimes' }, /overlap/],
    ] as const) {
      const res = await put(body);
      expectProblem(res, 400);
      expect(res.body.detail).toMatch(why);
    }
    expect((await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: KEY })).body).toEqual({ schedule: null });
  });

  it('sets, shows, lists, replaces and deletes the one schedule of an agent', async () => {
    const agentId = await deployedAgent();
    const put = await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, {
      key: KEY,
      body: { cron: '0 0 9 ? * MON-FRI *', timezone: 'Europe/Berlin' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ success: true, error: null });
    const { schedule } = (await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: KEY })).body;
    expect(schedule).toMatchObject({
      agent_id: agentId,
      cron: '0 0 9 ? * MON-FRI *',
      paused: false,
      consecutive_failures: 0,
      auto_paused: false,
      timezone: 'Europe/Berlin',
      overlap: 'skip',
    });
    expect(schedule.next_run).toBe(schedule.upcoming[0]);
    expect(schedule.next_run).toBeGreaterThan(Date.now());
    expect(schedule.upcoming).toHaveLength(5);
    for (let i = 1; i < 5; i++) expect(schedule.upcoming[i]).toBeGreaterThan(schedule.upcoming[i - 1]);
    const berlinHour = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', hourCycle: 'h23' });
    expect(schedule.upcoming.map((ms: number) => berlinHour.format(new Date(ms)))).toEqual(Array(5).fill('09'));

    await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body: { cron: '0 30 * * * ? *' } });
    const replaced = (await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: KEY })).body.schedule;
    expect(replaced).toMatchObject({ cron: '0 30 * * * ? *', timezone: null });
    const all = (await http(base, 'GET', '/v1/schedules', { key: KEY })).body.schedules;
    expect(all.filter((s: { agent_id: string }) => s.agent_id === agentId)).toHaveLength(1);

    expect((await http(base, 'DELETE', `/v1/agents/${agentId}/schedule`, { key: KEY })).body).toEqual({ success: true, error: null });
    expect((await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: KEY })).body).toEqual({ schedule: null });
    expectProblem(await http(base, 'DELETE', `/v1/agents/${agentId}/schedule`, { key: KEY }), 404);
    expectProblem(await http(base, 'POST', `/v1/agents/${agentId}/schedule/pause`, { key: KEY }), 404);
    expectProblem(await http(base, 'POST', `/v1/agents/${agentId}/schedule/resume`, { key: KEY }), 404);
    expectProblem(await http(base, 'GET', '/v1/agents/00000000-0000-4000-8000-000000000000/schedule', { key: KEY }), 404);
  });

  it('fires an every-2-seconds schedule; pause stops it, resume restarts it', async () => {
    const agentId = await deployedAgent();
    await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body: { cron: '*/2 * * * * ? *' } });
    const runs = await eventually('two scheduled runs', () => scheduledRuns(agentId), (r) => r.length >= 2, 10_000);
    expect(runs[0]).toMatchObject({ run_kind: 'schedule', schedule_agent_id: agentId });

    expect((await http(base, 'POST', `/v1/agents/${agentId}/schedule/pause`, { key: KEY })).body).toEqual({ success: true, error: null });
    expect((await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: KEY })).body.schedule.paused).toBe(true);
    await sleep(500);
    const whilePaused = (await scheduledRuns(agentId)).length;
    await sleep(4500);
    expect((await scheduledRuns(agentId)).length).toBe(whilePaused);

    await http(base, 'POST', `/v1/agents/${agentId}/schedule/resume`, { key: KEY });
    await eventually('a scheduled run after resuming', () => scheduledRuns(agentId), (r) => r.length > whilePaused, 10_000);
    await http(base, 'DELETE', `/v1/agents/${agentId}/schedule`, { key: KEY });
  });

  it('fires exactly once per fire time with two scheduler processes for 30 s', async () => {
    const seconds = 30;
    const second: INestApplication = await startSchedulerService(system.baseEnv());
    try {
      const agentId = await deployedAgent();
      await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body: { cron: '* * * * * ? *', overlap: 'allow' } });
      await sleep(seconds * 1000);
      await http(base, 'POST', `/v1/agents/${agentId}/schedule/pause`, { key: KEY });
      await sleep(1_000);
      const runs = await scheduledRuns(agentId);
      const startSeconds = runs.map((r: { started_at: string }) => Math.floor(Date.parse(r.started_at) / 1000));
      expect(runs.length).toBeGreaterThanOrEqual(seconds - 2);
      expect(runs.length).toBeLessThanOrEqual(seconds + 2);
      expect(new Set(runs.map((r: { run_number: number }) => r.run_number)).size).toBe(runs.length);
      expect(new Set(startSeconds).size).toBeGreaterThanOrEqual(runs.length - 1);

      // runs-service would absorb a double fire (its start is keyed by fire time), so look at the fires themselves.
      const connection = new Redis(system.infra.redisUrl, { maxRetriesPerRequest: null });
      const fires = new Queue(QueueNames.SchedulerFires, { connection, prefix: system.infra.redisPrefix });
      try {
        const jobs = (await fires.getJobs(['completed', 'failed', 'active', 'waiting', 'delayed'])).filter(
          (j) => j.data.agent_id === agentId,
        );
        const fireTimes = jobs.map((j) => j.data.fire_time);
        expect(fireTimes.length).toBeGreaterThanOrEqual(seconds - 2);
        expect(new Set(fireTimes).size).toBe(fireTimes.length);
        // A fire taken just before the pause is skipped by the worker once the schedule is paused.
        expect(runs.length).toBeLessThanOrEqual(fireTimes.length);
        expect(runs.length).toBeGreaterThanOrEqual(fireTimes.length - 1);
      } finally {
        await fires.close();
        connection.disconnect();
      }
    } finally {
      await second.close();
    }
  }, 90_000);
});

describe('Schedule failures and auto-pause', () => {
  let system: TestSystem;
  let runtime: Server;

  beforeAll(async () => {
    // Build runs succeed (so the agent deploys); every other run fails.
    runtime = createServer((req, res) => {
      // A version 1 runtime: no tool catalogue (GET /tools), only dispatches.
      if (req.method !== 'POST') return void res.writeHead(404).end();
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const mode = JSON.parse(body).run_mode;
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.end(mode === 'build' ? '{"type":"completed","outcome":"success"}\n' : '{"type":"failed","error":"always fails"}\n');
      });
    });
    await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(runtime.address() as AddressInfo).port}`;
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      runsEnv: { AGENT_RUNTIME_URL: url },
      schedulerEnv: { SCHEDULE_AUTO_PAUSE_AFTER: '3' },
    });
  });
  afterAll(async () => {
    await system.stop();
    await new Promise((resolve) => runtime.close(resolve));
  });

  it('counts failed scheduled runs and pauses the schedule after SCHEDULE_AUTO_PAUSE_AFTER in a row; resume clears it', async () => {
    const base = system.url();
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { run_mode: 'build' } });
    await eventually(
      'the agent deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent.deployment_state,
      (s) => s === 'deployed',
      15_000,
    );
    await http(base, 'PUT', `/v1/agents/${agentId}/schedule`, { key: KEY, body: { cron: '* * * * * ? *' } });
    const paused = await eventually(
      'the schedule auto-paused',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: KEY })).body.schedule,
      (s) => s.auto_paused,
      15_000,
    );
    expect(paused).toMatchObject({ paused: true, auto_paused: true, consecutive_failures: 3 });

    await http(base, 'POST', `/v1/agents/${agentId}/schedule/resume`, { key: KEY });
    const resumed = (await http(base, 'GET', `/v1/agents/${agentId}/schedule`, { key: KEY })).body.schedule;
    expect(resumed).toMatchObject({ paused: false, auto_paused: false });
    expect(resumed.consecutive_failures).toBeLessThan(3);
  });
});
