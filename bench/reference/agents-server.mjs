// The reference for the gateway benchmark: the strongest plain design a user would write for the
// same authenticated GET /v1/agents/{id}, in one Fastify + pg process reading the same tables:
// verified keys kept in memory (by their SHA-256, for 60 s, as the gateway's AUTH_CACHE_TTL_MS),
// one query for the agent, no logging. Our gateway's figures are reported as ratios of this one.
//   node bench/reference/agents-server.mjs <port> <database url>
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Fastify = require('fastify');
const { Pool } = require('pg');

const [port, databaseUrl] = process.argv.slice(2);
const KEY_TTL_MS = 60_000;
const pool = new Pool({ connectionString: databaseUrl, max: 10 });
const app = Fastify({ logger: false });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** key hash → { userId, until } */
const verified = new Map();

async function userOf(key) {
  const hash = createHash('sha256').update(key).digest('hex');
  const known = verified.get(hash);
  if (known && known.until > Date.now()) return known.userId;
  const { rows } = await pool.query('SELECT user_id FROM agents.api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]);
  if (rows.length === 0) return undefined;
  verified.set(hash, { userId: rows[0].user_id, until: Date.now() + KEY_TTL_MS });
  return rows[0].user_id;
}

app.get('/v1/agents/:agentId', async (request, reply) => {
  const key = request.headers['x-api-key'];
  if (typeof key !== 'string') return reply.code(401).send({ status: 401, title: 'Unauthorized' });
  const userId = await userOf(key);
  if (userId === undefined) return reply.code(401).send({ status: 401, title: 'Unauthorized' });
  const { agentId } = request.params;
  if (!UUID.test(agentId)) return reply.code(404).send({ status: 404, title: 'Not Found' });
  const { rows } = await pool.query({ name: 'agent', text: 'SELECT * FROM agents.agents WHERE id = $1 AND user_id = $2', values: [agentId, userId] });
  if (rows.length === 0) return reply.code(404).send({ status: 404, title: 'Not Found' });
  return { agent: rows[0] };
});

await app.listen({ port: Number(port), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => pool.end()).then(() => process.exit(0)));
