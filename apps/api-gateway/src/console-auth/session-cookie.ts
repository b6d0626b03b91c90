import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SESSION_COOKIE } from '@aas/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayEnv } from '../config/gateway.env';

/** What a session token looks like (32 random bytes, base64url); anything else in the cookie is ignored. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/**
 * The cookie's name over HTTPS: browsers accept a `__Host-` cookie only when it is Secure, for
 * Path=/ and without a Domain, so no sibling subdomain or plain-HTTP page can set one in its place.
 */
const HOST_ONLY_COOKIE = `__Host-${SESSION_COOKIE}`;

/**
 * The console's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's
 * page sends it), Path=/ (the console and /v1); over HTTPS also Secure and named `__Host-aas_session`,
 * and then only that name is read. Whether the console is served over HTTPS is CONSOLE_COOKIE_SECURE:
 * `auto` follows PUBLIC_BASE_URL's scheme (a setting every gateway has), never a request's header.
 */
@Injectable()
export class SessionCookie {
  private readonly https: boolean;

  constructor(config: ConfigService<GatewayEnv, true>) {
    const setting = config.get('CONSOLE_COOKIE_SECURE', { infer: true });
    this.https = setting === 'auto' ? config.get('PUBLIC_BASE_URL', { infer: true }).toLowerCase().startsWith('https:') : setting === 'always';
  }

  /** The session token the request's cookie carries, if it is one. */
  tokenOf(request: FastifyRequest): string | undefined {
    const token = request.cookies?.[this.name];
    return token !== undefined && TOKEN_SHAPE.test(token) ? token : undefined;
  }

  set(reply: FastifyReply, _request: FastifyRequest, token: string, expiresAt: Date): void {
    void reply.setCookie(this.name, token, { path: '/', httpOnly: true, sameSite: 'strict', secure: this.https, expires: expiresAt });
  }

  clear(reply: FastifyReply, _request: FastifyRequest): void {
    void reply.clearCookie(this.name, { path: '/', httpOnly: true, sameSite: 'strict', secure: this.https });
  }

  private get name(): string {
    return this.https ? HOST_ONLY_COOKIE : SESSION_COOKIE;
  }
}
