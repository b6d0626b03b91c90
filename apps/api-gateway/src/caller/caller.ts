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

/** The calling user's id, for handlers behind ApiKeyGuard. */
export const CallerId = createParamDecorator((_: unknown, ctx: ExecutionContext): string => {
  const caller = ctx.switchToHttp().getRequest<AuthenticatedRequest>().caller;
  if (!caller) throw new Error('CallerId used on a route that ApiKeyGuard did not authenticate');
  return caller.user_id;
});

/** The console session's id when a console session is calling, else undefined (an API key). */
export const CallerSessionId = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string | undefined => ctx.switchToHttp().getRequest<AuthenticatedRequest>().caller?.session_id,
);

/** The request id (x-request-id), passed on to services for their logs. */
export const RequestId = createParamDecorator(
  (_: unknown, ctx: ExecutionContext): string => ctx.switchToHttp().getRequest<FastifyRequest>().id,
);
