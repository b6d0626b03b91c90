import { once } from 'node:events';
import { createServer, request } from 'node:http';
import { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pinoHttp from 'pino-http';
import { pinoHttpOptions } from './logging.module';

/** Serves one request through pino-http with our settings and returns the lines it logged. */
async function logLinesOf(headers: Record<string, string>, level = 'info'): Promise<Record<string, any>[]> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const middleware = pinoHttp({ ...pinoHttpOptions('test-app', level), stream: sink });
  const server = createServer((req, res) => {
    (req as typeof req & { id: string }).id = 'req-42';
    middleware(req, res);
    req.log.warn('inside the request');
    res.end('ok');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve, reject) => {
      request({ port, path: '/v1/agents/a?x=1', headers }, (res) => res.resume().on('end', resolve)).on('error', reject).end();
    });
  } finally {
    server.close();
  }
  return lines.map((line) => JSON.parse(line));
}

describe('request logs', () => {
  const secrets = { 'x-api-key': 'aas_live_secret-key-value', authorization: 'Bearer token-value', cookie: 'session=cookie-value' };

  it('say which request (id, method, url) and never carry its headers, so no secret', async () => {
    const lines = await logLinesOf(secrets);
    expect(lines.map((line) => line.msg)).toEqual(['inside the request', 'request completed']);
    for (const line of lines) {
      expect(line).toMatchObject({ service: 'test-app', req: { id: 'req-42', method: 'GET', url: '/v1/agents/a?x=1' } });
      expect(line.req.headers).toBeUndefined();
      for (const secret of Object.values(secrets)) expect(JSON.stringify(line)).not.toContain(secret.split(/[ =]/).pop());
    }
  });

  it('log nothing for a successful request above info', async () => {
    const lines = await logLinesOf(secrets, 'error');
    expect(lines).toEqual([]);
  });
});
