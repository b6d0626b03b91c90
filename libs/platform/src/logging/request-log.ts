import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { loggableUrl } from './loggable-url';

/** Probes answer every few seconds; a line each would drown the rest. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz']);

export interface RequestLogOptions {
  /** The client address as the app counts it (the gateway: its rate limiter's key); request.ip by default. */
  clientAddress?: (request: FastifyRequest) => string;
}

/**
 * One log line per answered request, written from Fastify's onResponse hook: the request (id,
 * method, URL without its secrets, client address, never its headers, which carry the
 * credentials), the route it matched, its status and how long it took. A 5xx is logged at
 * error, the rest at info. Nothing is bound per request (no child logger), so above info a
 * request costs one level check.
 */
export function logRequests(fastify: FastifyInstance, logger: Logger, options: RequestLogOptions = {}): void {
  const clientAddress = options.clientAddress ?? ((request: FastifyRequest) => request.ip);
  fastify.addHook('onResponse', (request, reply, done) => {
    const failed = reply.statusCode >= 500;
    if (logger.isLevelEnabled(failed ? 'error' : 'info') && !UNLOGGED_PATHS.has(request.url)) {
      const line = requestLine(request, reply, clientAddress(request));
      if (failed) logger.error(line, 'request errored');
      else logger.info(line, 'request completed');
    }
    done();
  });
}

/**
 * What a request log line says of a request and its answer. Flat fields, none named `req`, `res`
 * or `err`: the apps' logger (built by pino-http) passes those through serializers made for
 * Node's request and response objects, which turned a plain status into `statusCode: null`.
 */
export function requestLine(request: FastifyRequest, reply: FastifyReply, clientAddress: string): object {
  const route = request.routeOptions.url;
  return {
    req_id: request.id,
    method: request.method,
    url: loggableUrl(request.url, route),
    route: route ?? 'unmatched',
    client_address: clientAddress,
    status_code: reply.statusCode,
    response_time_ms: Math.round(reply.elapsedTime * 10) / 10,
  };
}
