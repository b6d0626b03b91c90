import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { RawBodyRequest } from '@nestjs/common';
import { UnauthorizedError } from '@aas/problem-details';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { RuntimeEnv } from '../config/runtime.env';

/** `sha256=` + hex HMAC-SHA256 of the raw body, as runs-service signs a dispatch (docs/runtime-protocol.md). */
export function dispatchSignature(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Compared in constant time; a different length is a mismatch without comparing. */
export function signatureMatches(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(dispatchSignature(secret, body));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** With AGENT_RUNTIME_SECRET set, a dispatch must carry its X-Service-Signature; otherwise a 401. */
@Injectable()
export class DispatchSignatureGuard implements CanActivate {
  constructor(private readonly env: RuntimeEnv) {}

  canActivate(context: ExecutionContext): boolean {
    const secret = this.env.AGENT_RUNTIME_SECRET;
    if (!secret) return true;
    const request = context.switchToHttp().getRequest<RawBodyRequest<FastifyRequest>>();
    const header = request.headers['x-service-signature'];
    if (!signatureMatches(secret, request.rawBody ?? Buffer.alloc(0), typeof header === 'string' ? header : undefined)) {
      throw new UnauthorizedError('the dispatch has no valid X-Service-Signature (HMAC-SHA256 of the body with AGENT_RUNTIME_SECRET)');
    }
    return true;
  }
}
