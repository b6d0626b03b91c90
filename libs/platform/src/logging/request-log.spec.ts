import Fastify, { FastifyInstance } from 'fastify';
import pino from 'pino';
import { Writable } from 'node:stream';
import { runInRequestContext } from '../request-context/request-context';
import { loggerOptions } from './logging.module';
import { logRequests } from './request-log';

/** A Fastify app logging its requests at `level` into `lines`, as every app does. */
function appLoggingAt(level: string, lines: Record<string, any>[]): FastifyInstance {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  const logger = pino(loggerOptions('test-app', level), sink);
  const app = Fastify({ genReqId: () => 'req-42' });
  logRequests(app, logger);
  app.get('/v1/agents/:id', async () => {
    runInRequestContext('req-42', () => logger.warn('inside the request'));
    return { ok: true };
  });
  app.get('/boom', async (_request, reply) => reply.code(503).send({ down: true }));
  app.get('/healthz', async () => ({ ok: true }));
  return app;
}

describe('request logs', () => {
  const secrets = { 'x-api-key': 'aas_live_secret-key-value', authorization: 'Bearer token-value', cookie: 'session=cookie-value' };

  it('say which request (id, method, url, route), its status and duration, and never carry its headers', async () => {
    const lines: Record<string, any>[] = [];
    const app = appLoggingAt('info', lines);
    await app.inject({ method: 'GET', url: '/v1/agents/a?x=1', headers: secrets });
    expect(lines.map((line) => line.msg)).toEqual(['inside the request', 'request completed']);
    expect(lines[0]).toMatchObject({ service: 'test-app', req_id: 'req-42' });
    expect(lines[1]).toMatchObject({
      level: 30,
      service: 'test-app',
      req_id: 'req-42',
      req: { id: 'req-42', method: 'GET', url: '/v1/agents/a?x=1', remoteAddress: '127.0.0.1' },
      route: '/v1/agents/:id',
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    });
    for (const line of lines) {
      expect(line.req?.headers).toBeUndefined();
      for (const secret of Object.values(secrets)) expect(JSON.stringify(line)).not.toContain(secret.split(/[ =]/).pop());
    }
  });

  it('log a 5xx at error, and nothing else, above info', async () => {
    const lines: Record<string, any>[] = [];
    const app = appLoggingAt('error', lines);
    await app.inject({ method: 'GET', url: '/v1/agents/a', headers: secrets });
    await app.inject({ method: 'GET', url: '/missing' });
    expect(lines).toEqual([]);
    await app.inject({ method: 'GET', url: '/boom' });
    expect(lines).toEqual([expect.objectContaining({ level: 50, msg: 'request errored', route: '/boom', res: { statusCode: 503 } })]);
  });

  it('leave out the probes, and name an unmatched route as such', async () => {
    const lines: Record<string, any>[] = [];
    const app = appLoggingAt('info', lines);
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/nothing-here' });
    expect(lines).toEqual([expect.objectContaining({ route: 'unmatched', res: { statusCode: 404 } })]);
  });
});
