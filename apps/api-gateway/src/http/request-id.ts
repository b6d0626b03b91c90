import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { REQUEST_ID_HEADER, runInRequestContext } from '@aas/platform';

const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's x-request-id when it is sane, so one id follows a request across systems; otherwise makes one. */
export function requestIdFor(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && ACCEPTABLE_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * Runs each route (Nest's guards, pipes and handler) as part of its request, so that whatever it
 * logs, and any service request it sends without an explicit id, carries the request id. Bound
 * before the handler rather than on arrival, as a body is read outside the arrival's context.
 */
export function bindRequestContext(fastify: FastifyInstance): void {
  fastify.addHook('preHandler', (request, _reply, done) => runInRequestContext(request.id, done));
}
