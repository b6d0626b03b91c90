// npm run bench:webhooks — signed webhook deliveries per second for one and for two
// webhook-delivery processes against a loopback receiver. Deliveries are seeded
// straight into the delivery table and queue, so the figure is the delivery pool's own.
//   BENCH_DELIVERIES (default 20000)
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, startSystem } from './support/system.mjs';

const require = createRequire(import.meta.url);
const { Client } = require('pg');
const { Queue } = require('bullmq');

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const KEY = `bench-${Date.now()}-key-0123456789`;

let received = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received += 1;
    res.writeHead(204).end();
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

async function measure(workers, port) {
  const apps = ['agents-service', 'api-gateway', ...Array(workers).fill('webhook-delivery'), 'runs-service', 'scheduler-service'];
  const system = await startSystem({
    apps,
    gatewayPort: port,
    env: { BOOTSTRAP_API_KEY: KEY, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: 'error' },
  });
  const queue = new Queue('webhook-deliveries', { connection: { url: 'redis://127.0.0.1:6379' }, prefix: system.redisPrefix });
  try {
    const agentId = (await api(system.url, KEY, 'POST', '/v1/agents', {})).body.agent.agent_id;
    const webhookId = (await api(system.url, KEY, 'POST', `/v1/agents/${agentId}/webhooks`, { url: receiverUrl, events: ['run.started'] })).body
      .webhook_id;
    const pg = new Client({ connectionString: system.databaseUrl });
    await pg.connect();
    const body = JSON.stringify({ event: 'run.started', timestamp: new Date().toISOString(), data: { run_id: 'bench', agent_id: agentId, status: 'in_progress' } });
    const { rows } = await pg.query(
      `INSERT INTO webhooks.deliveries (webhook_id, source_event_id, event, body)
       SELECT $1, 'bench-' || n, 'run.started', $2 FROM generate_series(1, $3) AS n RETURNING id`,
      [webhookId, body, DELIVERIES],
    );
    await pg.end();
    received = 0;
    const t0 = Date.now();
    for (let i = 0; i < rows.length; i += 1000) {
      await queue.addBulk(rows.slice(i, i + 1000).map((r) => ({ name: 'deliver', data: { delivery_id: r.id }, opts: { jobId: r.id, removeOnComplete: true } })));
    }
    while (received < DELIVERIES) {
      process.stderr.write(`\r  ${workers} worker process(es): ${received} of ${DELIVERIES} delivered   `);
      if (Date.now() - t0 > 600_000) throw new Error('deliveries did not finish within 10 minutes');
      await sleep(250);
    }
    const seconds = (Date.now() - t0) / 1000;
    process.stderr.write('\n');
    return DELIVERIES / seconds;
  } finally {
    await queue.close();
    await system.stop();
  }
}

try {
  const one = await measure(1, 3900);
  const two = await measure(2, 3950);
  console.log('');
  console.log(`bench:webhooks (${DELIVERIES} signed deliveries to a loopback receiver)`);
  console.log(`  one worker process   ${one.toFixed(0)} deliveries/s`);
  console.log(`  two worker processes ${two.toFixed(0)} deliveries/s (${(two / one).toFixed(2)}x)`);
} finally {
  receiver.close();
}
