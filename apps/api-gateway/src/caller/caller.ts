import { ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling: resolved from the x-api-key, or from a console session, by ApiKeyGuard. */
export interface AuthenticatedCaller {
  user_id: string;
  /** The API key's id; empty for a console session. */
  key_id: string;
  /** Set when the console calls with its session cookie and CSRF token. */
  session_id?: string;
  /** When that session expires (ISO 8601). */
  session_expires_at?: string;
  /** The SHA-256 of that session's token (an event stream ends when the session does). */
  session_token_hash?: string;
}

export type AuthenticatedRequest = FastifyRequest & {
  caller?: AuthenticatedCaller;
  /** RevocationState.announcements when authentication began (for event streams). */
  announcementsAtAuth?: number;
};

/** Who calls and in which request: what a route passes on to the services (CallerServices). */
export interface Caller {
  userId: string;
  /** The request id (x-request-id), passed on to services for their logs. */
  requestId: string;
  /** The console session's id when a console session is calling, else undefined (an API key). */
  sessionId: string | undefined;
  /** The API key's id when a key is calling, else undefined (a console session); an answer's audit names it. */
  keyId?: string;
}

/** `@Caller() caller: Caller`: the caller of a route behind ApiKeyGuard. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext): Caller => {
  const request = ctx.switchToHttp().getRequest<AuthenticatedRequest>();
  if (!request.caller) throw new Error('@Caller() used on a route that ApiKeyGuard did not authenticate');
  const { user_id, session_id, key_id } = request.caller;
  return { userId: user_id, requestId: request.id, sessionId: session_id, keyId: key_id || undefined };
});
