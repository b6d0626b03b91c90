// The reference for the gateway benchmark: the same authenticated GET /v1/agents/{id},
// answered by one plain Fastify + pg process reading the same tables, with one query per
// request (API key hash and agent in one statement). Our gateway's figure is reported as a
// ratio of this one.   node bench/reference/agents-server.mjs <port> <database url>
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Fastify = require('fastify');
const { Pool } = require('pg');

const [port, databaseUrl] = process.argv.slice(2);
const pool = new Pool({ connectionString: databaseUrl, max: 10 });
const app = Fastify({ logger: false });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

app.get('/v1/agents/:agentId', async (request, reply) => {
  const key = request.headers['x-api-key'];
  if (typeof key !== 'string') return reply.code(401).send({ status: 401, title: 'Unauthorized' });
  const { agentId } = request.params;
  if (!UUID.test(agentId)) return reply.code(404).send({ status: 404, title: 'Not Found' });
  const hash = createHash('sha256').update(key).digest('hex');
  const { rows } = await pool.query(
    `SELECT a.* FROM agents.agents a JOIN agents.api_keys k ON k.user_id = a.user_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND a.id = $2`,
    [hash, agentId],
  );
  if (rows.length === 0) return reply.code(404).send({ status: 404, title: 'Not Found' });
  return { agent: rows[0] };
});

await app.listen({ port: Number(port), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => pool.end()).then(() => process.exit(0)));
