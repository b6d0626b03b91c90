import { Injectable } from '@nestjs/common';
import { AgentsPatterns, CSRF_HEADER, ConsoleSession, csrfTokenMatches, hashToken } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { ForbiddenError, UnauthorizedError } from '@aas/problem-details';
import type { FastifyRequest } from 'fastify';
import { AuthenticatedCaller } from '../caller/caller';
import { assertSameOrigin } from './same-origin';
import { SessionCookie } from './session-cookie';

const NEEDS_CSRF = `A console session authenticates an API request only with its ${CSRF_HEADER} header; programs send x-api-key`;
const SESSION_ENDED = 'The console session has ended; sign in again';

/**
 * The console's calls to the API: the session cookie plus its CSRF token in a
 * header, from the gateway's own origin. The cookie alone authenticates nothing
 * (so a page of another site, which the browser would send it for, can do
 * nothing), and sessions are checked with agents-service on every request, so
 * logout and a password reset end them at once.
 */
@Injectable()
export class ConsoleSessionAuthenticator {
  constructor(
    private readonly services: ServiceClient,
    private readonly cookie: SessionCookie,
  ) {}

  /** True when the request carries a session cookie (then it is judged here, not as a missing API key). */
  hasSession(request: FastifyRequest): boolean {
    return this.cookie.tokenOf(request) !== undefined;
  }

  /** `beforeLookUp` runs (and may refuse, by throwing) once the CSRF and origin checks passed, just before agents-service is asked. */
  async authenticateApiCall(request: FastifyRequest, beforeLookUp: () => Promise<void>): Promise<AuthenticatedCaller> {
    const token = this.cookie.tokenOf(request);
    if (!token) throw new UnauthorizedError(SESSION_ENDED);
    const csrf = request.headers[CSRF_HEADER];
    if (typeof csrf !== 'string' || csrf.length === 0) throw new ForbiddenError(NEEDS_CSRF);
    if (!csrfTokenMatches(token, csrf)) throw new ForbiddenError(`The ${CSRF_HEADER} header does not belong to this session`);
    assertSameOrigin(request);
    // The CSRF token of a made-up session is computable: only the look-up can tell, so its address pays first.
    await beforeLookUp();
    const session = await this.session(token, request.id);
    return {
      user_id: session.user_id,
      key_id: '',
      session_id: session.session_id,
      session_expires_at: session.expires_at,
      session_token_hash: hashToken(token),
    };
  }

  /** The live session behind `token`, or a 401. */
  async session(token: string, requestId: string): Promise<ConsoleSession> {
    const session = await this.services.request(
      AgentsPatterns.VerifyConsoleSession,
      { session_token_hash: hashToken(token) },
      requestId,
    );
    if (!session) throw new UnauthorizedError(SESSION_ENDED);
    return session;
  }
}
