import Fastify, { FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import pinoHttp from 'pino-http';
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
  // Built as nestjs-pino builds every app's root logger (PinoLogger.root): through pino-http, whose
  // serializers for req, res and err a bare pino logger lacks (they once turned the status into null).
  const logger = pinoHttp(loggerOptions('test-app', level), sink).logger;
  const app = Fastify({ genReqId: () => 'req-42' });
  logRequests(app, logger, { clientAddress: (request) => `counted:${request.ip}` });
  app.get('/v1/agents/:id', async () => {
    runInRequestContext('req-42', () => logger.warn('inside the request'));
    return { ok: true };
  });
  app.get('/boom', async (_request, reply) => reply.code(503).send({ down: true }));
  app.get('/healthz', async () => ({ ok: true }));
  app.post('/hooks/:trigger_id/:token', async (_request, reply) => reply.code(404).send({ found: false }));
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
    expect(lines[1]).toEqual({
      level: 30,
      time: expect.any(Number),
      msg: 'request completed',
      service: 'test-app',
      req_id: 'req-42',
      method: 'GET',
      url: '/v1/agents/a?x=1',
      route: '/v1/agents/:id',
      client_address: 'counted:127.0.0.1',
      status_code: 200,
      response_time_ms: expect.any(Number),
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
    expect(lines).toEqual([expect.objectContaining({ level: 50, msg: 'request errored', route: '/boom', status_code: 503 })]);
  });

  it('leave out the probes, and name an unmatched route as such', async () => {
    const lines: Record<string, any>[] = [];
    const app = appLoggingAt('info', lines);
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/nothing-here' });
    expect(lines).toEqual([expect.objectContaining({ route: 'unmatched', status_code: 404 })]);
  });

  it("never carry an inbound URL's token, matched or not, nor a secret query parameter", async () => {
    const lines: Record<string, any>[] = [];
    const app = appLoggingAt('info', lines);
    const token = 'Zm9vYmFyLXRva2VuLXRoYXQtaXMtNDMtY2hhcmFjdGVycw';
    const triggerId = '6f1c2a52-0d4b-4f55-9d7e-2f5a3c1b9e10';
    await app.inject({ method: 'POST', url: `/hooks/${triggerId}/${token}`, payload: {} });
    await app.inject({ method: 'GET', url: `/hooks/${triggerId}/${token}` });
    await app.inject({ method: 'GET', url: `/v1/agents/a?page_token=${token}&limit=5` });
    expect(lines.filter((line) => line.msg === 'request completed').map((line) => line.url)).toEqual([
      `/hooks/${triggerId}/[redacted]`,
      `/hooks/${triggerId}/[redacted]`,
      '/v1/agents/a?page_token=[redacted]&limit=5',
    ]);
    expect(lines[0]).toMatchObject({ route: '/hooks/:trigger_id/:token', status_code: 404 });
    expect(JSON.stringify(lines)).not.toContain(token);
  });
});
