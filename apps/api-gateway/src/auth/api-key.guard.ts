import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { IS_PUBLIC } from '@aas/platform';
import { UnauthorizedError } from '@aas/problem-details';
import { ConsoleSessionAuthenticator } from '../console-auth/console-session-authenticator';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { AuthenticatedRequest } from './caller';

/**
 * x-api-key is the only credential a program can use (spec section 5); a Bearer or JWT token is a 401.
 * Without a key, the console's session cookie counts only with its CSRF header (ConsoleSessionAuthenticator).
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly sessions: ConsoleSessionAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const key = request.headers['x-api-key'];
    if ((typeof key !== 'string' || key.length === 0) && this.sessions.hasSession(request)) {
      request.caller = await this.sessions.authenticateApiCall(request);
      return true;
    }
    if (typeof key !== 'string' || key.length === 0) {
      throw new UnauthorizedError(
        request.headers.authorization
          ? 'Bearer and JWT tokens are not accepted; send an API key in the x-api-key header'
          : 'Missing x-api-key header',
      );
    }
    request.caller = await this.authenticator.authenticate(key, request.id);
    return true;
  }
}
