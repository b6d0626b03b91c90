import { createGuardedDispatcher } from '@aas/platform';
import { Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { HttpToolLimits, sendHttpRequest } from './http-request.tool';

describe(sendHttpRequest.name, () => {
  let server: Server;
  let base: string;
  let dispatcher: Agent;
  const seen: { method?: string; headers: Record<string, unknown>; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method, headers: req.headers, body });
        if (req.url === '/big') return void res.end('x'.repeat(5000));
        if (req.url === '/slow') return void setTimeout(() => res.end('late'), 2000);
        if (req.url === '/redirect') return void res.writeHead(302, { location: '/elsewhere' }).end();
        res.writeHead(201, { 'content-type': 'text/plain' }).end(`got ${req.method} ${body}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    dispatcher = createGuardedDispatcher({ allowPrivateNetworks: true, connectTimeoutMs: 1000 });
  });

  afterAll(async () => {
    await dispatcher.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const limits = (over: Partial<HttpToolLimits> = {}): HttpToolLimits => ({ dispatcher, allowedHosts: undefined, timeoutMs: 1000, maxBytes: 1024, ...over });

  it('POSTs the body and headers, and answers the status, content type and body', async () => {
    const output = await sendHttpRequest({ method: 'POST', url: `${base}/x`, body: 'hello', headers: { 'x-test': '1', host: 'evil.example' } }, limits(), undefined);
    expect(output).toBe('HTTP 201 (text/plain)\n\ngot POST hello');
    expect(seen.at(-1)?.headers).toMatchObject({ 'x-test': '1', host: expect.stringMatching(/^127\.0\.0\.1:/) });
  });

  it('reads at most HTTP_TOOL_MAX_BYTES of the body and says so', async () => {
    const output = await sendHttpRequest({ method: 'GET', url: `${base}/big` }, limits({ maxBytes: 1024 }), undefined);
    expect(output).toMatch(/^HTTP 200, body cut to 1024 bytes\n\n/);
    expect(output.split('\n\n')[1]).toHaveLength(1024);
  });

  it('gives up after HTTP_TOOL_TIMEOUT_MS, does not follow redirects', async () => {
    await expect(sendHttpRequest({ method: 'GET', url: `${base}/slow` }, limits({ timeoutMs: 200 }), undefined)).rejects.toThrow(/within HTTP_TOOL_TIMEOUT_MS \(200 ms\)/);
    expect(await sendHttpRequest({ method: 'GET', url: `${base}/redirect` }, limits(), undefined)).toMatch(/^HTTP 302/);
  });

  it.each([
    ['ftp://example.com/x', /must use http or https/],
    ['not a url', /absolute http or https URL/],
    ['http://user:pw@example.com/', /username or password/],
  ])('refuses %s', async (url, message) => {
    await expect(sendHttpRequest({ method: 'GET', url }, limits(), undefined)).rejects.toThrow(message);
  });

  it('refuses a host outside HTTP_TOOL_ALLOWED_HOSTS before connecting', async () => {
    const before = seen.length;
    await expect(sendHttpRequest({ method: 'GET', url: `${base}/x` }, limits({ allowedHosts: ['api.example.com'] }), undefined)).rejects.toThrow(
      'the host 127.0.0.1 is not in this installation\'s HTTP_TOOL_ALLOWED_HOSTS',
    );
    expect(seen.length).toBe(before);
  });

  it('stops when the run is aborted', async () => {
    const abort = new AbortController();
    const pending = sendHttpRequest({ method: 'GET', url: `${base}/slow` }, limits({ timeoutMs: 5000 }), abort.signal);
    setTimeout(() => abort.abort(new Error('cancelled')), 50);
    await expect(pending).rejects.toThrow('cancelled');
  });
});
