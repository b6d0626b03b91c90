import { ForbiddenError } from '@aas/problem-details';
import type { FastifyRequest } from 'fastify';

const CROSS_ORIGIN = 'The console accepts requests only from its own origin';

/**
 * Refuses a console request that a browser says comes from another site: by
 * Sec-Fetch-Site when the browser sends it, and by Origin, whose host must be
 * this gateway's (request.host honours X-Forwarded-Host under TRUST_PROXY).
 * A request with neither header (not from a browser) is left to the CSRF token.
 */
export function assertSameOrigin(request: FastifyRequest): void {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') throw new ForbiddenError(CROSS_ORIGIN);
  const origin = request.headers.origin;
  if (origin === undefined) return;
  if (hostOf(origin) !== request.host.toLowerCase()) throw new ForbiddenError(CROSS_ORIGIN);
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return undefined;
  }
}
