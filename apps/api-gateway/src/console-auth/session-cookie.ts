import { SESSION_COOKIE } from '@aas/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayEnv } from '../config/gateway.env';

/** What a session token looks like (32 random bytes, base64url); anything else in the cookie is ignored. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export type CookieSecurity = GatewayEnv['CONSOLE_COOKIE_SECURE'];

/** The session token the request's cookie carries, if it is one. */
export function sessionTokenOf(request: FastifyRequest): string | undefined {
  const token = request.cookies?.[SESSION_COOKIE];
  return token !== undefined && TOKEN_SHAPE.test(token) ? token : undefined;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Path=/ (the console and /v1). */
export function setSessionCookie(reply: FastifyReply, request: FastifyRequest, token: string, expiresAt: Date, security: CookieSecurity): void {
  void reply.setCookie(SESSION_COOKIE, token, {
    path: '/',
    httpOnly: true,
    sameSite: 'strict',
    secure: isSecure(request, security),
    expires: expiresAt,
  });
}

export function clearSessionCookie(reply: FastifyReply, request: FastifyRequest, security: CookieSecurity): void {
  void reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'strict', secure: isSecure(request, security) });
}

function isSecure(request: FastifyRequest, security: CookieSecurity): boolean {
  if (security !== 'auto') return security === 'always';
  // Only the browser that sent the header gets a Secure cookie: trusting it here costs nothing.
  const forwarded = request.headers['x-forwarded-proto'];
  return request.protocol === 'https' || (typeof forwarded === 'string' && forwarded.split(',')[0].trim() === 'https');
}
