import { TooManyRequestsError } from '@aas/problem-details';
import Fastify, { FastifyInstance } from 'fastify';
import { AddressInfo, Socket, connect } from 'node:net';
import { Registry } from 'prom-client';
import { capConnectionsPerAddress } from './connection-cap';

/** An app whose /hold requests stay in progress until `release()`, capped at 2 per address. */
async function cappedApp(trustProxy: false | string[]): Promise<{ app: FastifyInstance; registry: Registry; release: () => void }> {
  const app = Fastify({ trustProxy });
  const registry = new Registry();
  capConnectionsPerAddress(app, { perAddress: 2, trustProxy, registry });
  app.setErrorHandler((error, _request, reply) => reply.code(error instanceof TooManyRequestsError ? 429 : 500).send());
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  app.get('/hold', async () => {
    await released;
    return { ok: true };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, registry, release };
}

function open(app: FastifyInstance): Promise<{ socket: Socket; closed: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect((app.server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    const closed = new Promise<string>((done) => socket.once('close', () => done(received)));
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

async function refused(registry: Registry, by: string): Promise<number> {
  const metric = await registry.getSingleMetric('aas_http_connections_refused_total')!.get();
  return metric.values.find((v) => v.labels.by === by)?.value ?? 0;
}

describe(capConnectionsPerAddress.name, () => {
  it("counts a trusted proxy's forwarded clients by their requests in progress, each address apart", async () => {
    const { app, registry, release } = await cappedApp(['127.0.0.1']);
    const hold = (client: string) => app.inject({ method: 'GET', url: '/hold', headers: { 'x-forwarded-for': client } });
    const held = [hold('203.0.113.7'), hold('203.0.113.7')];
    await new Promise((resolve) => setImmediate(resolve));
    expect((await hold('203.0.113.7')).statusCode).toBe(429);
    const other = hold('203.0.113.8');
    release();
    expect((await Promise.all([...held, other])).map((res) => res.statusCode)).toEqual([200, 200, 200]);
    expect((await hold('203.0.113.7')).statusCode).toBe(200);
    expect(await refused(registry, 'request')).toBe(1);
    await app.close();
  });

  it("never caps a trusted proxy's own connections", async () => {
    const { app, registry, release } = await cappedApp(['127.0.0.1']);
    const sockets = await Promise.all([open(app), open(app), open(app)]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sockets.every(({ socket }) => !socket.destroyed)).toBe(true);
    expect(await refused(registry, 'connection')).toBe(0);
    sockets.forEach(({ socket }) => socket.destroy());
    release();
    await app.close();
  });

  it('closes a direct client connection over the cap unanswered, and takes one again once a slot is free', async () => {
    const { app, registry, release } = await cappedApp(false);
    const [first, second] = [await open(app), await open(app)];
    const third = await open(app);
    expect(await third.closed).toBe('');
    expect(await refused(registry, 'connection')).toBe(1);
    first.socket.destroy();
    await first.closed;
    const again = await open(app);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(again.socket.destroyed).toBe(false);
    [second, again].forEach(({ socket }) => socket.destroy());
    release();
    await app.close();
  });
});
