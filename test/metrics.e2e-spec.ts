import { QueueNames, RunsPatterns } from '@aas/contracts';
import { INestApplication } from '@nestjs/common';
import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from './support/eventually';
import { http } from './support/http';
import { Sample, parsePrometheusText, samplesOf } from './support/prometheus-text';
import { TestSystem, urlOf } from './support/test-system';

const KEY = 'metrics-bootstrap-key-0123456789';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

const total = (samples: Sample[]) => samples.reduce((sum, s) => sum + s.value, 0);

/** GET /metrics on every app, in the Prometheus text format, without authentication. */
describe('Metrics', () => {
  let system: TestSystem;
  let base: string;
  const appUrl = (app: INestApplication | undefined) => urlOf(app!);

  beforeAll(async () => {
    system = await TestSystem.start({
      bootstrapApiKey: KEY,
      runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' },
      webhooksEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
    });
    base = system.url();
  });
  afterAll(() => system.stop());

  it('the gateway measures requests by route pattern and status, and exposes process metrics', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (let i = 0; i < 3; i++) expect((await http(base, 'GET', `/v1/agents/${missing}`, { key: KEY })).status).toBe(404);
    const samples = await scrape(base);
    const labels = { service: 'api-gateway', method: 'GET', route: '/v1/agents/:agent_id', status_code: '404' };
    expect(samplesOf(samples, 'aas_http_request_duration_seconds_count', labels)).toEqual([
      expect.objectContaining({ value: 3 }),
    ]);
    // One series per route, not per id.
    expect(samples.some((s) => s.labels.route?.includes(missing))).toBe(false);
    expect(samplesOf(samples, 'aas_process_resident_memory_bytes')[0].value).toBeGreaterThan(0);
  });

  it('runs-service reports runs by status, queue depths, job outcomes and request handling', async () => {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    const before = await scrape(appUrl(system.others.runs));
    const finishedBefore = total(samplesOf(before, 'aas_runs_finished_total', { status: 'completed' }));
    for (let i = 0; i < 3; i++) {
      expect((await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } })).status).toBe(201);
    }
    for (let waited = 0; waited < 10_000; waited += 100) {
      const runs = (await http(base, 'GET', `/v1/agents/${agentId}/runs`, { key: KEY })).body.runs;
      if (runs.every((r: { is_finished: boolean }) => r.is_finished)) break;
      await sleep(100);
    }

    const samples = await scrape(appUrl(system.others.runs));
    expect(total(samplesOf(samples, 'aas_runs_finished_total', { service: 'runs-service', status: 'completed' })) - finishedBefore).toBe(3);
    expect(samplesOf(samples, 'aas_runs_unfinished').every((s) => s.value === 0)).toBe(true);
    expect(samplesOf(samples, 'aas_queue_jobs', { queue: 'runs-execution', state: 'waiting' })).toEqual([
      expect.objectContaining({ value: 0 }),
    ]);
    expect(total(samplesOf(samples, 'aas_queue_jobs_processed_total', { queue: 'runs-execution', outcome: 'completed' }))).toBeGreaterThanOrEqual(3);
    expect(total(samplesOf(samples, 'aas_rpc_request_duration_seconds_count', { pattern: RunsPatterns.StartRun, outcome: 'ok' }))).toBe(3);
  });

  it('webhook-delivery counts attempts by outcome and times them', async () => {
    const receiver = await new Promise<Server>((resolve) => {
      const server = createServer((_req, res) => res.writeHead(204).end());
      server.listen(0, '127.0.0.1', () => resolve(server));
    });
    try {
      const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      expect((await http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: KEY, body: { url, events: ['run.started'] } })).status).toBe(201);
      await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } });
      let samples: Sample[] = [];
      for (let waited = 0; waited < 10_000; waited += 100) {
        samples = await scrape(appUrl(system.others.webhooks));
        if (total(samplesOf(samples, 'aas_webhook_delivery_attempts_total', { outcome: 'succeeded' })) >= 1) break;
        await sleep(100);
      }
      expect(total(samplesOf(samples, 'aas_webhook_delivery_attempts_total', { service: 'webhook-delivery', outcome: 'succeeded' }))).toBe(1);
      expect(total(samplesOf(samples, 'aas_webhook_delivery_duration_seconds_count', { outcome: 'succeeded' }))).toBe(1);
    } finally {
      receiver.close();
    }
  });

  it('scheduler-service counts fires by outcome and measures the lag of each fire that started a run', async () => {
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { run_mode: 'build' } });
    await eventually(
      'the agent to be deployed',
      async () => (await http(base, 'GET', `/v1/agents/${agentId}`, { key: KEY })).body.agent.deployment_state,
      (state) => state === 'deployed',
    );
    const scheduledRuns = async (): Promise<unknown[]> =>
      (await http(base, 'GET', `/v1/agents/${agentId}/runs?page_size=1000`, { key: KEY })).body.runs.filter(
        (r: { run_kind: string }) => r.run_kind === 'schedule',
      );
    const schedule = `/v1/agents/${agentId}/schedule`;
    expect((await http(base, 'PUT', schedule, { key: KEY, body: { cron: '* * * * * ? *', overlap: 'allow' } })).status).toBe(200);
    await eventually('two scheduled runs', scheduledRuns, (runs) => runs.length >= 2);
    await http(base, 'POST', `${schedule}/pause`, { key: KEY });

    // Every fire taken before the pause is handled: started, or skipped because the schedule was paused meanwhile.
    const connection = new Redis(system.infra.redisUrl, { maxRetriesPerRequest: null });
    const fires = new Queue(QueueNames.SchedulerFires, { connection, prefix: system.infra.redisPrefix });
    let fireJobs: number;
    try {
      const counts = await eventually(
        'every fire job to complete',
        () => fires.getJobCounts('completed', 'active', 'waiting', 'delayed', 'failed'),
        (c) => c.completed > 0 && c.active + c.waiting + c.delayed + c.failed === 0,
      );
      fireJobs = counts.completed;
    } finally {
      await fires.close();
      connection.disconnect();
    }

    const samples = await scrape(appUrl(system.others.scheduler));
    const fired = (outcome: string) => total(samplesOf(samples, 'aas_schedule_fires_total', { service: 'scheduler-service', outcome }));
    const lag = (suffix: string, labels: Record<string, string> = {}) =>
      total(samplesOf(samples, `aas_schedule_fire_lag_seconds_${suffix}`, { service: 'scheduler-service', ...labels }));
    const runs = (await scheduledRuns()).length;
    expect(fired('started')).toBe(runs);
    expect(fired('started') + fired('skipped_paused')).toBe(fireJobs);
    expect(fired('refused') + fired('skipped_overlap') + fired('skipped_deleted')).toBe(0);
    expect(lag('count')).toBe(runs);
    expect(lag('sum')).toBeGreaterThan(0);
    // Every fire here started its run within 10 s of its fire time.
    expect(lag('bucket', { le: '10' })).toBe(runs);
    expect(lag('bucket', { le: '+Inf' })).toBe(runs);
  });

  it('every back-end app serves its metrics on its health port', async () => {
    const apps = { 'agents-service': system.agents[0], 'scheduler-service': system.others.scheduler, 'webhook-delivery': system.others.webhooks };
    for (const [service, app] of Object.entries(apps)) {
      const samples = await scrape(appUrl(app));
      expect(samplesOf(samples, 'aas_process_cpu_seconds_total', { service }).length).toBeGreaterThan(0);
    }
  });
});
