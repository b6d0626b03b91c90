import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { TooManyRequestsError } from '@aas/problem-details';
import type { FastifyReply } from 'fastify';
import { AuthenticatedRequest } from '../auth/caller';
import { ApiKeyRateLimiter } from './api-key-rate-limiter';

/**
 * Runs after ApiKeyGuard: counts the request against its key's allowance and
 * answers 429 with Retry-After once it is used up. Public routes (health,
 * docs) have no caller and are not limited. Every limited response carries the
 * RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(private readonly limiter: ApiKeyRateLimiter) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    if (!this.limiter.enabled || !request.caller) return true;
    // A user's console sessions share one allowance; each API key has its own.
    const bucket = request.caller.session_id ? `console:${request.caller.user_id}` : request.caller.key_id;
    const decision = await this.limiter.consume(bucket);
    void context
      .switchToHttp()
      .getResponse<FastifyReply>()
      .header('ratelimit-limit', String(decision.limit))
      .header('ratelimit-remaining', String(decision.remaining))
      .header('ratelimit-reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      throw new TooManyRequestsError(
        `This ${request.caller.session_id ? 'console user' : 'API key'} made more than ${decision.limit} requests in the current window; retry after ${decision.resetSeconds} s`,
        decision.resetSeconds,
      );
    }
    return true;
  }
}
