import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '@aas/platform';
import { ForbiddenError, UnauthorizedError } from '@aas/problem-details';
import type { FastifyReply } from 'fastify';
import { RequestRateLimits } from '../rate-limit/request-rate-limits';
import { ConsoleSessionAuthenticator } from '../console-auth/console-session-authenticator';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { AuthenticatedRequest } from '../caller/caller';
import { RevocationState } from './revocation-state';

/**
 * x-api-key is the only credential a program can use (spec section 5); a Bearer or JWT token is a 401.
 * Without a key, the console's session cookie counts only with its CSRF header (ConsoleSessionAuthenticator).
 * What arrives without a key this gateway has already verified costs its client address one
 * request of the per-address allowance: a missing or malformed key, a refused session, every key
 * that needs a look-up in agents-service and every session cookie (charged before the look-up, so
 * a flood of made-up keys or sessions from one address is refused with 429 without reaching
 * agents-service). A session that proves live gets its address's request back: its user pays.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly limits: RequestRateLimits,
    private readonly sessions: ConsoleSessionAuthenticator,
    private readonly revocations: RevocationState,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    let charged = false;
    const chargeAddress = async () => {
      charged = true;
      await this.limits.chargeAddress(request, reply);
    };
    const key = request.headers['x-api-key'];
    request.announcementsAtAuth = this.revocations.announcements;
    try {
      if ((typeof key !== 'string' || key.length === 0) && this.sessions.hasSession(request)) {
        request.caller = await this.sessions.authenticateApiCall(request, chargeAddress);
        await this.limits.refundAddress(request);
        return true;
      }
      if (typeof key !== 'string' || key.length === 0) {
        throw new UnauthorizedError(
          request.headers.authorization
            ? 'Bearer and JWT tokens are not accepted; send an API key in the x-api-key header'
            : 'Missing x-api-key header',
        );
      }
      request.caller = await this.authenticator.authenticate(key, request.id, chargeAddress);
      return true;
    } catch (error) {
      // Over the address's allowance, the 429 from chargeAddress replaces the 401 or 403.
      if ((error instanceof UnauthorizedError || error instanceof ForbiddenError) && !charged) await chargeAddress();
      throw error;
    }
  }
}
