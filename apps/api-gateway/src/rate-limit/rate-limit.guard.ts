import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { AuthenticatedRequest } from '../caller/caller';
import { InstallationDeliveries } from './installation-deliveries';
import { NO_ADDRESS_LIMIT } from './no-address-limit.decorator';
import { RequestRateLimits } from './request-rate-limits';

/**
 * Runs after ApiKeyGuard. An authenticated request counts against its user (all of the user's keys
 * share one allowance); a public route (metrics, the deep status) counts against the client
 * address, except the probes. Over an allowance the answer is a 429 with Retry-After; every
 * counted response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset. Requests with
 * a missing or bad key are counted against their address by ApiKeyGuard. A call this installation's
 * webhook delivery made to one of its inbound endpoints is charged to no address (InstallationDeliveries).
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RequestRateLimits,
    private readonly installation: InstallationDeliveries,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest>();
    const reply = http.getResponse<FastifyReply>();
    if (request.caller) {
      await this.limits.chargeUser(request.caller.user_id, reply);
    } else if (!this.reflector.getAllAndOverride<boolean>(NO_ADDRESS_LIMIT, [context.getHandler(), context.getClass()])) {
      // This installation's own webhook deliveries into its inbound endpoints are not charged to the one address they share.
      if (!this.installation.sentByThisInstallation(request)) await this.limits.chargeAddress(request, reply);
    }
    return true;
  }
}
