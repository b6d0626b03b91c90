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
 * `auto` follows PUBLIC_BASE_URL's scheme when it is set, else the request.
 */
@Injectable()
export class SessionCookie {
  private readonly https: boolean | undefined;

  constructor(config: ConfigService<GatewayEnv, true>) {
    const setting = config.get('CONSOLE_COOKIE_SECURE', { infer: true });
    const publicBase = config.get('PUBLIC_BASE_URL', { infer: true });
    if (setting !== 'auto') this.https = setting === 'always';
    else if (publicBase) this.https = publicBase.toLowerCase().startsWith('https:');
  }

  /** The session token the request's cookie carries, if it is one. */
  tokenOf(request: FastifyRequest): string | undefined {
    const token = request.cookies?.[this.nameFor(request)];
    return token !== undefined && TOKEN_SHAPE.test(token) ? token : undefined;
  }

  set(reply: FastifyReply, request: FastifyRequest, token: string, expiresAt: Date): void {
    const secure = this.isHttps(request);
    void reply.setCookie(this.nameFor(request), token, { path: '/', httpOnly: true, sameSite: 'strict', secure, expires: expiresAt });
  }

  clear(reply: FastifyReply, request: FastifyRequest): void {
    const secure = this.isHttps(request);
    void reply.clearCookie(this.nameFor(request), { path: '/', httpOnly: true, sameSite: 'strict', secure });
  }

  private nameFor(request: FastifyRequest): string {
    return this.isHttps(request) ? HOST_ONLY_COOKIE : SESSION_COOKIE;
  }

  private isHttps(request: FastifyRequest): boolean {
    if (this.https !== undefined) return this.https;
    // The header only decides how this client's own cookie is named and marked: trusting it costs nothing.
    const forwarded = request.headers['x-forwarded-proto'];
    return request.protocol === 'https' || (typeof forwarded === 'string' && forwarded.split(',')[0].trim() === 'https');
  }
}
