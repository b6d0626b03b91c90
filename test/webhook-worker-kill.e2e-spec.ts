import { ChildProcess, spawn } from 'node:child_process';
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { BUILD_TIMEOUT_MS, ensureBuiltOnce } from './support/built-apps';
import { http } from './support/http';
import { TestSystem } from './support/test-system';
import { eventually } from './support/eventually';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { entry } = require('../scripts/apps.js') as { entry(app: string): string };

const KEY = 'worker-kill-bootstrap-key-0123456';

/**
 * Delivery workers as real processes (the compiled app): one is killed with
 * SIGKILL while a delivery is in flight, and another must still deliver it,
 * with the same delivery id.
 */
describe('A webhook worker killed mid-delivery', () => {
  let system: TestSystem;
  let receiver: Server;
  let receiverUrl: string;
  const received: { headers: IncomingHttpHeaders; body: string }[] = [];
  const held: ServerResponse[] = [];
  const workers: ChildProcess[] = [];

  beforeAll(() => ensureBuiltOnce(), BUILD_TIMEOUT_MS);
  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        if (received.length === 1) held.push(res); // the first attempt never gets an answer
        else res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    system = await TestSystem.start({ bootstrapApiKey: KEY, webhooks: false, runsEnv: { BUILTIN_RUNTIME_STEP_MS: '10' } });
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    for (const res of held) res.destroy();
    await system.stop();
    await new Promise((resolve) => receiver.close(resolve));
  });

  function startWorker(): ChildProcess {
    const worker = spawn(process.execPath, [entry('webhook-delivery')], {
      env: {
        ...process.env,
        ...system.baseEnv(),
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_LOCK_DURATION_MS: '2000',
        WEBHOOK_STALLED_INTERVAL_MS: '1000',
        WEBHOOK_TIMEOUT_MS: '60000',
      },
      stdio: 'ignore',
    });
    workers.push(worker);
    return worker;
  }

  it('is delivered by another worker with the same delivery id', async () => {
    const base = system.url();
    const first = startWorker();
    const agentId = (await http(base, 'POST', '/v1/agents', { key: KEY, body: {} })).body.agent.agent_id;
    // Creating the webhook goes through the worker process: it answers once it is up.
    const created = await eventually(
      'the webhook created',
      () => http(base, 'POST', `/v1/agents/${agentId}/webhooks`, { key: KEY, body: { url: receiverUrl, events: ['run.started'] } }),
      (res) => res.status === 201,
    );
    const secret = created.body.signing_secret;
    expect(secret).toMatch(/^whsec_/);
    await http(base, 'POST', `/v1/agents/${agentId}/runs`, { key: KEY, body: { skip_deploy_check: true } });

    await eventually('the first delivery received', () => received.length, (n) => n >= 1);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    startWorker();

    await eventually('the delivery received again', () => received.length, (n) => n >= 2);
    expect(received[1].headers['x-service-delivery']).toBe(received[0].headers['x-service-delivery']);
    expect(received[1].body).toBe(received[0].body);

    const pg = new Client({ connectionString: system.infra.databaseUrl });
    await pg.connect();
    try {
      const rows = await eventually(
        'the delivery succeeded',
        async () => (await pg.query(`SELECT status FROM webhooks.deliveries`)).rows,
        (r) => r.length === 1 && r[0].status === 'succeeded',
      );
      expect(rows).toEqual([{ status: 'succeeded' }]);
    } finally {
      await pg.end();
    }
  });
});
