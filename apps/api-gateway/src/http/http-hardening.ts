import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { JSON_VALUE_MAX_DEPTH } from '@aas/contracts';
import { REQUEST_ID_HEADER } from '@aas/platform';
import {
  DomainError,
  PROBLEM_CONTENT_TYPE,
  ProblemCode,
  ProblemDetail,
  problemFromCode,
  problemType,
  reasonPhrase,
} from '@aas/problem-details';

/**
 * Deepest JSON body accepted. The deepest real request (plan_steps[].tools[])
 * is 3 levels; the limit only has to stop a body nested thousands deep, which
 * would overflow the stack of class-transformer in the validation pipe (a 500).
 */
export const MAX_JSON_DEPTH = JSON_VALUE_MAX_DEPTH;

/**
 * FastifyAdapter options that turn what Fastify answers on its own, before
 * Nest or the routes, into Problem Details with a request id: a URL that
 * cannot be decoded (400), a path parameter longer than any id (404, as any
 * other id that names nothing), and errors of the HTTP parser such as headers
 * over Node's 16 KiB limit (431).
 */
export const problemFastifyOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> = {
  frameworkErrors: answerFrameworkError,
  clientErrorHandler: answerClientError,
};

/**
 * Request bodies are JSON objects (spec section 1): any other content type is
 * a 415 (Fastify would parse text/plain, and Nest adds a form parser), and a
 * JSON body that is not an object (`null` would otherwise count as `{}`) or is
 * nested deeper than MAX_JSON_DEPTH is a 400, before the validation pipe runs.
 */
export function installBodyChecks(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', async (request: FastifyRequest) => {
    // An inbound webhook endpoint takes any JSON value its sender posts; the API's bodies are objects.
    const anyJson = request.routeOptions.url?.startsWith('/hooks/') ?? false;
    checkBody(request.body, request.headers['content-type'], anyJson);
  });
}

/** Throws the Problem a request body deserves, if any; a request without a body passes. */
export function checkBody(body: unknown, contentType: string | undefined, anyJsonValue = false): void {
  if (body === undefined) return;
  if (!isJson(contentType)) {
    throw new DomainError(ProblemCode.UnsupportedMediaType, 'Request bodies must be JSON (Content-Type: application/json)');
  }
  if (anyJsonValue) {
    if (typeof body === 'object' && body !== null && exceedsDepth(body, MAX_JSON_DEPTH)) {
      throw new DomainError(ProblemCode.MalformedRequest, `The request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    return;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError(ProblemCode.MalformedRequest, 'The request body must be a JSON object');
  }
  if (exceedsDepth(body, MAX_JSON_DEPTH)) {
    throw new DomainError(ProblemCode.MalformedRequest, `The request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

function isJson(contentType: string | undefined): boolean {
  return typeof contentType === 'string' && /^application\/json\s*(;|$)/i.test(contentType.trim());
}

/** Iterative, so that measuring a deep body cannot overflow the stack either. */
export function exceedsDepth(root: object, limit: number): boolean {
  const pending: [unknown, number][] = [[root, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (depth > limit) return true;
    for (const child of Object.values(value as object)) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return false;
}

function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let problem: ProblemDetail;
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    // No id is that long, so nothing is found: the same answer as for any id that names nothing.
    problem = problemFromCode(ProblemCode.NotFound, 'Not found: a path id is longer than any id');
  } else if (error.code === 'FST_ERR_BAD_URL') {
    problem = problemFromCode(ProblemCode.MalformedRequest, 'The URL is not validly percent-encoded UTF-8');
  } else {
    problem = problemFromCode(ProblemCode.Internal, 'An unexpected error occurred; the request id identifies it in the logs.');
    request.log.error({ err: error }, 'framework error');
  }
  void reply
    .status(problem.status)
    .header(REQUEST_ID_HEADER, request.id)
    .header('content-type', PROBLEM_CONTENT_TYPE)
    .send({ ...problem, request_id: request.id });
}

/** Node's HTTP parser rejected the request before Fastify saw it: answer on the socket, then close it. */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const detail =
    status === 431 ? 'The request headers are larger than the server accepts' : status === 408 ? 'The request was not received in time' : 'The request is not valid HTTP';
  const requestId = randomUUID();
  const body = JSON.stringify({
    type: problemType(ProblemCode.MalformedRequest),
    title: reasonPhrase(status),
    status,
    detail,
    request_id: requestId,
  } satisfies ProblemDetail);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reasonPhrase(status)}\r\n` +
        `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
