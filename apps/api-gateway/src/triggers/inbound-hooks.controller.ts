import { Controller, HttpCode, Param, Post, RawBodyRequest, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { InboundHookResponse, SchedulerPatterns } from '@aas/contracts';
import { Public, ServiceClient } from '@aas/platform';
import { RemoteProblemError } from '@aas/problem-details';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { InstallationDeliveries } from '../rate-limit/installation-deliveries';
import { NoAddressLimit } from '../rate-limit/no-address-limit.decorator';
import { RequestRateLimits } from '../rate-limit/request-rate-limits';
import { passableHeaders } from './passable-headers';
import { VerifiedHookUrls } from './verified-hook-urls';

/**
 * Inbound webhook endpoints (docs/triggers.md): no API key; the URL's token, and the signature the
 * trigger asks for, are checked by scheduler-service, which owns triggers and charges the calls that
 * pass to the endpoint's and its owner's allowances. Here, a call that fails those checks counts
 * against its client address, and an address over its allowance reaches only URLs that passed lately.
 * A call this installation's own webhook delivery made (a valid aas-chain header) is neither charged to
 * nor refused for the address it shares with every tenant's deliveries (InstallationDeliveries).
 */
@ApiTags('Inbound webhooks')
@Public()
@NoAddressLimit() // charged here, by the verdict, not by RateLimitGuard before it
@Controller('hooks')
export class InboundHooksController {
  constructor(
    private readonly services: ServiceClient,
    private readonly limits: RequestRateLimits,
    private readonly verifiedUrls: VerifiedHookUrls,
    private readonly installation: InstallationDeliveries,
  ) {}

  @Post(':trigger_id/:token')
  @HttpCode(202)
  @ApiOperation({
    summary: "Start one run of the trigger's agent with this JSON payload",
    description:
      'A repeated webhook-id, X-GitHub-Delivery or Idempotency-Key header within 24 hours answers the first call\'s run ' +
      '(for a GitHub-verified endpoint: the same signed body). An unknown, disabled or deleted trigger and a wrong token are a 404; ' +
      'a missing or bad signature is a 401; a body with NUL or unpaired surrogates, non-finite numbers or more than 32 levels is a 400.',
    security: [],
  })
  @ApiParam({ name: 'trigger_id', format: 'uuid' })
  @ApiParam({ name: 'token', description: 'The secret last segment of the URL returned at creation' })
  @ApiBody({ description: 'Any JSON value', schema: {} })
  @ApiAcceptedResponse({ type: InboundHookResponse })
  @ApiProblems(400, 401, 404, 413, 415, 422, 429)
  async receive(
    @Param('trigger_id') triggerId: string,
    @Param('token') token: string,
    @Req() request: RawBodyRequest<FastifyRequest>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<InboundHookResponse> {
    const url = VerifiedHookUrls.digestOf(triggerId, token);
    const ownDelivery = this.installation.sentByThisInstallation(request);
    if (!ownDelivery) await this.limits.refuseInboundFromFailingAddress(request, reply, () => this.verifiedUrls.has(url));
    // Sent on even when empty: the endpoint is identified (or a 404) before anything about the body is said.
    const body = request.rawBody?.toString('utf8') ?? '';
    try {
      const answer = await this.services.request(
        SchedulerPatterns.InboundHook,
        { trigger_id: triggerId, token, body, headers: passableHeaders(request.headers) },
        request.id,
      );
      this.verifiedUrls.remember(url);
      return answer;
    } catch (error) {
      if (failedVerification(error)) {
        if (!ownDelivery) await this.limits.chargeInboundFailure(request, reply);
      } else if (passedVerification(error)) this.verifiedUrls.remember(url);
      throw error;
    }
  }
}

/** scheduler-service's 404 (no such endpoint, or a wrong token) and 401 (a missing or bad signature). */
function failedVerification(error: unknown): boolean {
  return error instanceof RemoteProblemError && (error.problem.status === 404 || error.problem.status === 401);
}

/** Any other answer of scheduler-service's was given after the token and signature checked out (a 400 body, a 429). */
function passedVerification(error: unknown): boolean {
  return error instanceof RemoteProblemError && error.problem.status >= 400 && error.problem.status < 500;
}
