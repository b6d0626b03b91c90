import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  CreateTriggerRequest,
  CreatedTriggerDto,
  SchedulerPatterns,
  TriggerCredentialsDto,
  TriggerDto,
  TriggerListResponse,
  TriggerWithCredentials,
  UpdateTriggerRequest,
} from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { GatewayEnv } from '../config/gateway.env';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { publicHookUrl } from './public-hook-url';

@ApiTags('Triggers')
@ApiParam({ name: 'agent_id', format: 'uuid' })
@Controller('v1/agents/:agent_id/triggers')
export class TriggersController {
  private readonly publicBaseUrl: string;

  constructor(
    private readonly services: CallerServices,
    config: ConfigService<GatewayEnv, true>,
  ) {
    this.publicBaseUrl = config.get('PUBLIC_BASE_URL', { infer: true });
  }

  @Get()
  @ApiOperation({ summary: "The agent's triggers (URL tokens and secrets are never shown)" })
  @ApiOkResponse({ type: TriggerListResponse })
  @ApiProblems(401, 404)
  list(@Caller() caller: Caller, @Param('agent_id') agentId: string): Promise<TriggerListResponse> {
    return this.services.request(caller, SchedulerPatterns.ListTriggers, { agent_id: agentId });
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an inbound webhook endpoint (kind webhook) or an event trigger (kind event)',
    description: 'A webhook trigger answers its public url and signing secret in this response only.',
  })
  @ApiCreatedResponse({ type: CreatedTriggerDto })
  @ApiProblems(400, 401, 404, 422)
  async create(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: CreateTriggerRequest,
  ): Promise<CreatedTriggerDto> {
    const created = await this.services.request(caller, SchedulerPatterns.CreateTrigger,
      { ...body, agent_id: agentId });
    return { ...created.trigger, ...this.credentials(created) };
  }

  @Get(':trigger_id')
  @ApiOperation({ summary: 'One trigger' })
  @ApiParam({ name: 'trigger_id', format: 'uuid' })
  @ApiOkResponse({ type: TriggerDto })
  @ApiProblems(401, 404)
  get(@Caller() caller: Caller, @Param('agent_id') agentId: string, @Param('trigger_id') triggerId: string): Promise<TriggerDto> {
    return this.services.request(caller, SchedulerPatterns.GetTrigger, { agent_id: agentId, trigger_id: triggerId });
  }

  @Patch(':trigger_id')
  @ApiOperation({ summary: 'Change a trigger; only the fields given change (message_template null clears it)' })
  @ApiParam({ name: 'trigger_id', format: 'uuid' })
  @ApiOkResponse({ type: TriggerDto })
  @ApiProblems(400, 401, 404)
  update(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('trigger_id') triggerId: string,
    @Body() body: UpdateTriggerRequest,
  ): Promise<TriggerDto> {
    return this.services.request(caller, SchedulerPatterns.UpdateTrigger,
      { ...body, agent_id: agentId, trigger_id: triggerId });
  }

  @Delete(':trigger_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a trigger; its URL answers 404 from now on' })
  @ApiParam({ name: 'trigger_id', format: 'uuid' })
  @ApiNoContentResponse()
  @ApiProblems(401, 404)
  async delete(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('trigger_id') triggerId: string,
  ): Promise<void> {
    await this.services.request(caller, SchedulerPatterns.DeleteTrigger, { agent_id: agentId, trigger_id: triggerId });
  }

  @Post(':trigger_id/rotate')
  @HttpCode(200)
  @ApiOperation({ summary: "A webhook trigger's new URL token and signing secret, at once; the old ones stop working now" })
  @ApiParam({ name: 'trigger_id', format: 'uuid' })
  @ApiOkResponse({ type: TriggerCredentialsDto })
  @ApiProblems(400, 401, 404)
  async rotate(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('trigger_id') triggerId: string,
  ): Promise<TriggerCredentialsDto> {
    const rotated = await this.services.request(caller, SchedulerPatterns.RotateTrigger,
      { agent_id: agentId, trigger_id: triggerId });
    return this.credentials(rotated) as TriggerCredentialsDto;
  }

  private credentials(result: TriggerWithCredentials): Partial<TriggerCredentialsDto> {
    if (result.token === undefined) return {};
    return { url: publicHookUrl(this.publicBaseUrl, result.trigger.trigger_id, result.token), secret: result.secret };
  }
}
