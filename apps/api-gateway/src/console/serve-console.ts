import fastifyStatic from '@fastify/static';
import { Logger } from '@nestjs/common';
import { REQUEST_ID_HEADER } from '@aas/platform';
import { PROBLEM_CONTENT_TYPE, ProblemCode, problemFromCode } from '@aas/problem-details';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const CONSOLE_PREFIX = '/console';

/**
 * No inline script or style, nothing from elsewhere: the console is only files of
 * its own origin and calls to this gateway. `data:` images are Pico CSS's icons.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Vite names every file under assets/ by its content hash: it never changes, so it may be cached for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current assets: always revalidated, so a new build is picked up at once. */
const REVALIDATE = 'no-cache';

/** The console's build directory: CONSOLE_DIR, or dist/console under the working directory. */
export function consoleDirectory(configured: string): string {
  return configured ? path.resolve(configured) : path.resolve(process.cwd(), 'dist', 'console');
}

/**
 * Serves the built console (apps/console) under /console: the hashed assets as
 * files, and index.html for every other path below it, so the console's own
 * routes (/console/agents/…) load on a reload or a shared link.
 */
export async function serveConsole(fastify: FastifyInstance, directory: string): Promise<void> {
  const indexFile = path.join(directory, 'index.html');
  if (!existsSync(indexFile)) {
    new Logger('Console').warn(`no console build at ${directory} (npm run build makes it); ${CONSOLE_PREFIX} answers 404`);
    fastify.get(`${CONSOLE_PREFIX}/*`, notBuilt);
    fastify.get(CONSOLE_PREFIX, notBuilt);
    return;
  }
  const index = readFileSync(indexFile);
  await fastify.register(fastifyStatic, {
    root: directory,
    prefix: `${CONSOLE_PREFIX}/`,
    decorateReply: false,
    wildcard: false,
    index: false,
    setHeaders: (reply: FastifyReply, file: string) => {
      securityHeaders(reply);
      void reply.header('cache-control', file.includes(`${path.sep}assets${path.sep}`) ? IMMUTABLE : REVALIDATE);
    },
  });
  const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
    // A missing file (a stale asset name) is a 404, not the page.
    if (path.extname(request.url.split('?')[0]) !== '') return notFound(request, reply);
    securityHeaders(reply);
    return reply.header('cache-control', REVALIDATE).type('text/html; charset=utf-8').send(index);
  };
  fastify.get(CONSOLE_PREFIX, async (_request, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 301));
  fastify.get(`${CONSOLE_PREFIX}/`, sendIndex);
  fastify.get(`${CONSOLE_PREFIX}/*`, sendIndex);
}

function securityHeaders(reply: FastifyReply): void {
  void reply.headers({
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  });
}

function notBuilt(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return problem(request, reply, 'The console is not built on this server (npm run build makes it)');
}

function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return problem(request, reply, `No console file at ${request.url.split('?')[0]}`);
}

function problem(request: FastifyRequest, reply: FastifyReply, detail: string): FastifyReply {
  const body = { ...problemFromCode(ProblemCode.NotFound, detail), request_id: request.id };
  return reply.status(404).header(REQUEST_ID_HEADER, request.id).header('content-type', PROBLEM_CONTENT_TYPE).send(body);
}
