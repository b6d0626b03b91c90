import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import {
  AgentListResponse,
  AgentResponse,
  AgentsPatterns,
  CreateAgentRequest,
  ListAgentsQuery,
  MoveAgentRequest,
  SuccessResponse,
  UpdateAgentRequest,
} from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { RelaysJson } from '../http/relays-json';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { JsonBody } from '@aas/platform';

@ApiTags('Agents')
@Controller('v1/agents')
export class AgentsController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: 'List the agents of the caller, a page at a time' })
  @ApiOkResponse({ type: AgentListResponse })
  @ApiProblems(400, 401)
  @RelaysJson()
  list(
    @Caller() caller: Caller,
    @Query() query: ListAgentsQuery,
  ): Promise<JsonBody<AgentListResponse>> {
    return this.services.requestJson(caller, AgentsPatterns.ListAgents, { ...query });
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an agent, in the default workspace unless one is given' })
  @ApiCreatedResponse({ type: AgentResponse })
  @ApiProblems(400, 401, 409, 422)
  create(
    @Caller() caller: Caller,
    @Body() body: CreateAgentRequest,
  ): Promise<AgentResponse> {
    return this.services.request(caller, AgentsPatterns.CreateAgent, { ...body });
  }

  @Get(':agent_id')
  @ApiOperation({ summary: 'Get an agent' })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiOkResponse({ type: AgentResponse })
  @ApiProblems(401, 404)
  @RelaysJson()
  get(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
  ): Promise<JsonBody<AgentResponse>> {
    return this.services.requestJson(caller, AgentsPatterns.GetAgent, { agent_id: agentId });
  }

  @Patch(':agent_id')
  @ApiOperation({ summary: "Rename an agent: its agent_name (name and explanation); a later build run may name it again" })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiOkResponse({ type: AgentResponse })
  @ApiProblems(400, 401, 404)
  update(@Caller() caller: Caller, @Param('agent_id') agentId: string, @Body() body: UpdateAgentRequest): Promise<AgentResponse> {
    return this.services.request(caller, AgentsPatterns.UpdateAgent, { ...body, agent_id: agentId });
  }

  @Delete(':agent_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an agent and its run data' })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted; the body is empty' })
  @ApiProblems(401, 404)
  async remove(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
  ): Promise<void> {
    await this.services.request(caller, AgentsPatterns.DeleteAgent, { agent_id: agentId });
  }

  @Post(':agent_id/move')
  @HttpCode(200)
  @ApiOperation({ summary: 'Move an agent to another workspace of the caller' })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiProblems(400, 401, 404)
  move(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: MoveAgentRequest,
  ): Promise<SuccessResponse> {
    return this.services.request(caller, AgentsPatterns.MoveAgent, { ...body, agent_id: agentId });
  }
}
