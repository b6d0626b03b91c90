import { LookupAddress } from 'node:dns';
import { createServer, Server } from 'node:http';
import { AddressInfo, LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { SsrfBlockedError, createGuardedDispatcher, guardLookup, isForbiddenAddress, isSsrfBlocked } from './ssrf-guard';

describe(isForbiddenAddress.name, () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.10',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '2001:db8::1',
    'not-an-ip',
    '',
  ])('forbids %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '::ffff:8.8.8.8', '2001:4860:4860::8888', '2606:2800:220:1:248:1893:25c8:1946'])(
    'allows %s',
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false);
    },
  );
});

describe(guardLookup.name, () => {
  function fakeResolve(answer: string | LookupAddress[]): LookupFunction {
    return (_hostname, _options, callback) => process.nextTick(() => callback(null, answer, 4));
  }

  function lookUp(lookup: LookupFunction, all: boolean): Promise<{ error: NodeJS.ErrnoException | null; address: unknown }> {
    return new Promise((resolve) => lookup('hooks.example', { all }, (error, address) => resolve({ error, address })));
  }

  it('passes public answers through unchanged', async () => {
    expect(await lookUp(guardLookup(fakeResolve('93.184.216.34')), false)).toEqual({ error: null, address: '93.184.216.34' });
    const all = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ];
    expect(await lookUp(guardLookup(fakeResolve(all)), true)).toEqual({ error: null, address: all });
  });

  it('blocks when any of several answers is forbidden', async () => {
    const all = [
      { address: '93.184.216.34', family: 4 },
      { address: '10.1.2.3', family: 4 },
    ];
    const { error } = await lookUp(guardLookup(fakeResolve(all)), true);
    expect(error).toBeInstanceOf(SsrfBlockedError);
    expect(error).toMatchObject({ code: 'ERR_SSRF_BLOCKED', hostname: 'hooks.example', address: '10.1.2.3' });
    expect(error?.message).toContain('10.1.2.3');
  });

  it('passes resolution errors through', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    const failing: LookupFunction = (_hostname, _options, callback) => callback(notFound, '');
    expect((await lookUp(guardLookup(failing), false)).error).toBe(notFound);
  });
});

describe(createGuardedDispatcher.name, () => {
  let server: Server;
  let port: number;
  let hits = 0;
  const dispatchers: Agent[] = [];

  function dispatcher(allowPrivateNetworks: boolean): Agent {
    const agent = createGuardedDispatcher({ allowPrivateNetworks, connectTimeoutMs: 2_000, subject: 'webhook' });
    dispatchers.push(agent);
    return agent;
  }

  async function blockedError(url: string): Promise<unknown> {
    const error = await request(url, { method: 'POST', body: '{}', dispatcher: dispatcher(false) }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeDefined();
    return error;
  }

  beforeAll(async () => {
    server = createServer((_request, response) => {
      hits += 1;
      response.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await Promise.all(dispatchers.map((agent) => agent.close()));
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    hits = 0;
  });

  it('refuses an IP literal host in a private range, which no lookup sees', async () => {
    const error = await blockedError(`http://127.0.0.1:${port}/`);
    expect(error).toMatchObject({ code: 'ERR_SSRF_BLOCKED', message: expect.stringContaining('127.0.0.1') });
    expect(isSsrfBlocked(error)).toBe(true);
    expect(hits).toBe(0);
  });

  it('refuses a name that resolves to loopback', async () => {
    const error = await blockedError(`http://localhost:${port}/`);
    expect(error).toMatchObject({ code: 'ERR_SSRF_BLOCKED', hostname: 'localhost' });
    expect((error as SsrfBlockedError).message).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
    expect(hits).toBe(0);
  });

  it.each(['[::1]', '[::ffff:127.0.0.1]', '169.254.169.254', '[fd00:ec2::254]'])('refuses the literal host %s', async (host) => {
    expect(isSsrfBlocked(await blockedError(`http://${host}:${port}/`))).toBe(true);
  });

  it('connects to private addresses when private networks are allowed', async () => {
    for (const url of [`http://127.0.0.1:${port}/`, `http://localhost:${port}/`]) {
      const response = await request(url, { dispatcher: dispatcher(true) });
      expect(response.statusCode).toBe(200);
      expect(await response.body.text()).toBe('ok');
    }
    expect(hits).toBe(2);
  });
});

describe(isSsrfBlocked.name, () => {
  it('finds the refusal at any depth of the cause chain', () => {
    const blocked = new SsrfBlockedError('a.example', '10.0.0.1');
    expect(isSsrfBlocked(blocked)).toBe(true);
    expect(isSsrfBlocked(new TypeError('fetch failed', { cause: blocked }))).toBe(true);
    expect(isSsrfBlocked(new Error('outer', { cause: new Error('middle', { cause: blocked }) }))).toBe(true);
    expect(isSsrfBlocked({ code: 'ERR_SSRF_BLOCKED' })).toBe(true);
  });

  it('is false for other errors and non-errors, and survives a cause cycle', () => {
    const cyclic = new Error('a');
    cyclic.cause = new Error('b', { cause: cyclic });
    expect(isSsrfBlocked(cyclic)).toBe(false);
    expect(isSsrfBlocked(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(false);
    expect(isSsrfBlocked('ERR_SSRF_BLOCKED')).toBe(false);
    expect(isSsrfBlocked(undefined)).toBe(false);
    expect(isSsrfBlocked(null)).toBe(false);
  });
});
