import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/** Probes answer every few seconds; a line each would drown the rest. */
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz']);

/**
 * One log line per answered request, written from Fastify's onResponse hook: the request (id,
 * method, URL, client address, never its headers, which carry the secrets), the route it
 * matched, its status and how long it took. A 5xx is logged at error, the rest at info. Nothing
 * is bound per request (no child logger), so above info a request costs one level check.
 */
export function logRequests(fastify: FastifyInstance, logger: Logger): void {
  fastify.addHook('onResponse', (request, reply, done) => {
    const failed = reply.statusCode >= 500;
    if (logger.isLevelEnabled(failed ? 'error' : 'info') && !UNLOGGED_PATHS.has(request.url)) {
      if (failed) logger.error(requestLine(request, reply), 'request errored');
      else logger.info(requestLine(request, reply), 'request completed');
    }
    done();
  });
}

/** What a request log line says of a request and its answer. */
export function requestLine(request: FastifyRequest, reply: FastifyReply): object {
  return {
    req_id: request.id,
    req: { id: request.id, method: request.method, url: request.url, remoteAddress: request.ip },
    route: request.routeOptions.url ?? 'unmatched',
    res: { statusCode: reply.statusCode },
    responseTime: Math.round(reply.elapsedTime * 10) / 10,
  };
}
