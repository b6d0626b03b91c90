import { Controller, HttpCode, Param, Post, RawBodyRequest, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { InboundHookResponse, SchedulerPatterns } from '@aas/contracts';
import { Public, ServiceClient } from '@aas/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { RequestRateLimits } from '../rate-limit/request-rate-limits';
import { passableHeaders } from './passable-headers';

/**
 * Inbound webhook endpoints (docs/triggers.md): no API key; the URL's token, and the signature
 * the trigger asks for, are checked by scheduler-service, which owns triggers. Counted per client
 * address (as every request without a key) and per endpoint.
 */
@ApiTags('Inbound webhooks')
@Public()
@Controller('hooks')
export class InboundHooksController {
  constructor(
    private readonly services: ServiceClient,
    private readonly limits: RequestRateLimits,
  ) {}

  @Post(':trigger_id/:token')
  @HttpCode(202)
  @ApiOperation({
    summary: "Start one run of the trigger's agent with this JSON payload",
    description:
      'A repeated webhook-id, X-GitHub-Delivery or Idempotency-Key header within 24 hours answers the first call\'s run. ' +
      'An unknown, disabled or deleted trigger and a wrong token are a 404; a missing or bad signature is a 401.',
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
    await this.limits.chargeInboundEndpoint(triggerId, token, reply);
    // Sent on even when empty: the endpoint is identified (or a 404) before anything about the body is said.
    const body = request.rawBody?.toString('utf8') ?? '';
    return this.services.request(
      SchedulerPatterns.InboundHook,
      { trigger_id: triggerId, token, body, headers: passableHeaders(request.headers) },
      request.id,
    );
  }
}
