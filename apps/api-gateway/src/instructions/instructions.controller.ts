import { Body, Controller, Get, HttpCode, Param, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import {
  AgentsPatterns,
  InstructionHistoryQuery,
  InstructionHistoryResponse,
  InstructionsResponse,
  PutInstructionsRequest,
  SuccessResponse,
} from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Instructions')
@Controller('v1/agents/:agent_id/instructions')
export class InstructionsController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: 'Get the current instructions of an agent (null when it has none)' })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiOkResponse({ type: InstructionsResponse })
  @ApiProblems(401, 404)
  get(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
  ): Promise<InstructionsResponse> {
    return this.services.request(caller, AgentsPatterns.GetInstructions, { agent_id: agentId });
  }

  @Put()
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace the instructions of an agent, adding one version to its history' })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiProblems(400, 401, 404, 422)
  put(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: PutInstructionsRequest,
  ): Promise<SuccessResponse> {
    return this.services.request(caller, AgentsPatterns.PutInstructions,
      { ...body, agent_id: agentId });
  }

  @Get('history')
  @ApiOperation({ summary: 'List the instruction versions of an agent, newest first' })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiOkResponse({ type: InstructionHistoryResponse })
  @ApiProblems(400, 401, 404)
  history(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Query() query: InstructionHistoryQuery,
  ): Promise<InstructionHistoryResponse> {
    return this.services.request(caller, AgentsPatterns.ListInstructionVersions,
      { ...query, agent_id: agentId });
  }
}
