import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import {
  CreateWebhookRequest,
  CreatedWebhookDto,
  DeliveryDto,
  DeliveryListResponse,
  ListDeliveriesQuery,
  RedeliverSinceRequest,
  RedeliverSinceResponse,
  SendTestEventRequest,
  UpdateWebhookRequest,
  WebhookDto,
  WebhookListResponse,
  WebhooksPatterns,
} from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Webhooks')
@ApiParam({ name: 'agent_id', format: 'uuid' })
@Controller('v1/agents/:agent_id/webhooks')
export class WebhooksController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: "The agent's webhooks (signing secrets are never shown)" })
  @ApiOkResponse({ type: WebhookListResponse })
  @ApiProblems(401, 404)
  list(@Caller() caller: Caller, @Param('agent_id') agentId: string): Promise<WebhookListResponse> {
    return this.services.request(caller, WebhooksPatterns.ListWebhooks, { agent_id: agentId });
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Subscribe a URL to run lifecycle events; the signing secret is returned only here',
    description: 'A URL this installation would refuse to call (a non-public address, or a host resolving to one, while private networks are not allowed) is a 400 saying why.',
  })
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  @ApiProblems(400, 401, 404, 422)
  create(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: CreateWebhookRequest,
  ): Promise<CreatedWebhookDto> {
    return this.services.request(caller, WebhooksPatterns.CreateWebhook, { ...body, agent_id: agentId });
  }

  @Get(':webhook_id')
  @ApiOperation({ summary: 'One webhook' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiProblems(401, 404)
  get(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('webhook_id') webhookId: string,
  ): Promise<WebhookDto> {
    return this.services.request(caller, WebhooksPatterns.GetWebhook, { agent_id: agentId, webhook_id: webhookId });
  }

  @Patch(':webhook_id')
  @ApiOperation({ summary: 'Change url, events or status; only the fields given change; a new url is checked as at creation' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiProblems(400, 401, 404)
  update(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('webhook_id') webhookId: string,
    @Body() body: UpdateWebhookRequest,
  ): Promise<WebhookDto> {
    return this.services.request(caller, WebhooksPatterns.UpdateWebhook,
      { ...body, agent_id: agentId, webhook_id: webhookId });
  }

  @Delete(':webhook_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook; it receives nothing more' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(401, 404)
  async delete(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('webhook_id') webhookId: string,
  ): Promise<void> {
    await this.services.request(caller, WebhooksPatterns.DeleteWebhook, { agent_id: agentId, webhook_id: webhookId });
  }

  @Get(':webhook_id/deliveries')
  @ApiOperation({ summary: "A webhook's deliveries, newest first, each with every attempt" })
  @ApiOkResponse({ type: DeliveryListResponse })
  @ApiProblems(400, 401, 404)
  deliveries(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('webhook_id') webhookId: string,
    @Query() query: ListDeliveriesQuery,
  ): Promise<DeliveryListResponse> {
    return this.services.request(caller, WebhooksPatterns.ListDeliveries,
      { ...query, agent_id: agentId, webhook_id: webhookId });
  }

  @Post(':webhook_id/test')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send a signed sample of a run event to the webhook now, once (also to a disabled webhook)',
    description:
      'The delivery is queued and answered pending; its attempt appears in the delivery history. At most WEBHOOK_TEST_EVENTS_PER_MINUTE (5) per webhook, and WEBHOOK_REQUESTED_SENDS_PER_USER_PER_MINUTE (30) test events and bulk redeliveries per user, per minute: over either a 429 with Retry-After.',
  })
  @ApiAcceptedResponse({ type: DeliveryDto })
  @ApiProblems(400, 401, 404, 429)
  sendTest(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('webhook_id') webhookId: string,
    @Body() body: SendTestEventRequest,
  ): Promise<DeliveryDto> {
    return this.services.request(caller, WebhooksPatterns.SendTestEvent,
      { ...body, agent_id: agentId, webhook_id: webhookId });
  }

  @Post(':webhook_id/deliveries/redeliver')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Send every failed delivery of the webhook made since a time again, oldest first',
    description:
      "At most WEBHOOK_REDELIVER_SINCE_MAX (1,000) per request, and as many as fit in the next 30 s of the user's bulk redeliveries, which go out WEBHOOK_REDELIVER_SINCE_PER_SECOND (20) a second, each due (next_attempt_at) at its turn; `more` says whether failed ones are left (ask again), and when none fit the answer is a 429 with Retry-After. Only failed deliveries are taken, so a repeated request queues nothing twice. 409 while the webhook is disabled. Counts against WEBHOOK_REQUESTED_SENDS_PER_USER_PER_MINUTE (429 over it).",
  })
  @ApiAcceptedResponse({ type: RedeliverSinceResponse })
  @ApiProblems(400, 401, 404, 409, 429)
  redeliverSince(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('webhook_id') webhookId: string,
    @Body() body: RedeliverSinceRequest,
  ): Promise<RedeliverSinceResponse> {
    return this.services.request(caller, WebhooksPatterns.RedeliverSince,
      { ...body, agent_id: agentId, webhook_id: webhookId });
  }

  @Get(':webhook_id/deliveries/:delivery_id')
  @ApiOperation({ summary: 'One delivery, with every attempt' })
  @ApiOkResponse({ type: DeliveryDto })
  @ApiProblems(401, 404)
  delivery(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('webhook_id') webhookId: string,
    @Param('delivery_id') deliveryId: string,
  ): Promise<DeliveryDto> {
    return this.services.request(caller, WebhooksPatterns.GetDelivery,
      { agent_id: agentId, webhook_id: webhookId, delivery_id: deliveryId });
  }

  @Post(':webhook_id/deliveries/:delivery_id/redeliver')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send a delivery again now, with the same delivery id and body' })
  @ApiAcceptedResponse({ type: DeliveryDto })
  @ApiProblems(401, 404)
  redeliver(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('webhook_id') webhookId: string,
    @Param('delivery_id') deliveryId: string,
  ): Promise<DeliveryDto> {
    return this.services.request(caller, WebhooksPatterns.Redeliver,
      { agent_id: agentId, webhook_id: webhookId, delivery_id: deliveryId });
  }
}
