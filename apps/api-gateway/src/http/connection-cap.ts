import proxyAddr from '@fastify/proxy-addr';
import { METRIC_PREFIX } from '@aas/platform';
import { TooManyRequestsError } from '@aas/problem-details';
import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';
import { Counter, Gauge, Registry, RegistryContentType } from 'prom-client';
import { addressKey } from '../rate-limit/client-address';
import { AddressSlots } from './address-slots';

export interface ConnectionCapOptions {
  /** HTTP_CONNECTIONS_PER_ADDRESS; 0 turns the cap off. */
  perAddress: number;
  /** parseTrustProxy(TRUST_PROXY): the proxies whose connections carry many clients. */
  trustProxy: false | string[];
  registry: Registry<RegistryContentType>;
}

/**
 * The per-address cap on what one client holds open at this gateway, keyed as the rate limiter
 * keys addresses (addressKey: IPv4 as is, IPv6 by its /64). A direct client's connections are
 * counted when they open: one over the cap is closed at once, unanswered, before Node reads a
 * byte of it. A trusted proxy's connections are not (they carry every client); instead each
 * forwarded client's requests in progress are counted, and one over the cap is a 429.
 */
export function capConnectionsPerAddress(fastify: FastifyInstance, options: ConnectionCapOptions): void {
  const refused = new Counter({
    name: `${METRIC_PREFIX}http_connections_refused_total`,
    help: 'Connections closed unanswered (by connection) and requests answered 429 (by request) because their client address held HTTP_CONNECTIONS_PER_ADDRESS already',
    labelNames: ['by'],
    registers: [options.registry],
  });
  // Both present from the start, at 0, so an alert can compare them with what came before.
  refused.labels({ by: 'connection' });
  refused.labels({ by: 'request' });
  const connections = new AddressSlots(options.perAddress);
  new Gauge({
    name: `${METRIC_PREFIX}http_connections_open`,
    help: 'Connections open from direct clients (not from trusted proxies)',
    registers: [options.registry],
    collect() {
      this.set(connections.total);
    },
  });
  if (options.perAddress === 0) return;
  const fromProxy = options.trustProxy ? proxyAddr.compile(options.trustProxy) : () => false;

  fastify.server.on('connection', (socket: Socket) => {
    const peer = socket.remoteAddress ?? '';
    if (fromProxy(peer, 0)) return;
    const address = addressKey(peer);
    if (!connections.take(address)) {
      refused.inc({ by: 'connection' });
      socket.destroy();
      return;
    }
    socket.once('close', () => connections.release(address));
  });

  if (!options.trustProxy) return;
  const requests = new AddressSlots(options.perAddress);
  fastify.addHook('onRequest', async (request, reply) => {
    if (!fromProxy(request.socket.remoteAddress ?? '', 0)) return;
    const address = addressKey(request.ip);
    if (!requests.take(address)) {
      refused.inc({ by: 'request' });
      throw new TooManyRequestsError(`This address has ${options.perAddress} requests in progress at this gateway already`, 1);
    }
    // 'close' comes once the answer is sent or the connection is gone, also for a hijacked event stream.
    reply.raw.once('close', () => requests.release(address));
  });
}

/** Counts the requests Node closed for not arriving within HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS. */
export function countRequestTimeouts(fastify: FastifyInstance, registry: Registry<RegistryContentType>): void {
  const timedOut = new Counter({
    name: `${METRIC_PREFIX}http_request_timeouts_total`,
    help: 'Connections closed with a 408 because their headers or their whole request did not arrive in time',
    registers: [registry],
  });
  fastify.server.on('clientError', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') timedOut.inc();
  });
}
