import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AnswerInputRequestBody, InputRequestListResponse, InputRequestResponse, ListInputRequestsQuery, RunsPatterns } from '@aas/contracts';
import { JsonBody } from '@aas/platform';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { RelaysJson } from '../http/relays-json';
import { ApiProblems } from '../openapi/api-problems.decorator';

/** Questions runs ask a person, and their answers (docs/input-requests.md, an addition to the contract). */
@ApiTags('Input requests')
@Controller('v1')
export class InputRequestsController {
  constructor(private readonly services: CallerServices) {}

  @Get('input-requests')
  @ApiOperation({ summary: "The caller's input requests across their agents, oldest first (at most 100); `status=pending` for the open ones" })
  @ApiOkResponse({ type: InputRequestListResponse })
  @ApiProblems(400, 401)
  @RelaysJson()
  listForUser(@Caller() caller: Caller, @Query() query: ListInputRequestsQuery): Promise<JsonBody<InputRequestListResponse>> {
    return this.services.requestJson(caller, RunsPatterns.ListInputRequests, query);
  }

  @Get('agents/:agent_id/runs/:run_id/input-requests')
  @ApiOperation({ summary: "A run's input requests, oldest first (at most 100)" })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiParam({ name: 'run_id', format: 'uuid' })
  @ApiOkResponse({ type: InputRequestListResponse })
  @ApiProblems(401, 404)
  @RelaysJson()
  listForRun(@Caller() caller: Caller, @Param('agent_id') agentId: string, @Param('run_id') runId: string): Promise<JsonBody<InputRequestListResponse>> {
    return this.services.requestJson(caller, RunsPatterns.ListRunInputRequests, { agent_id: agentId, run_id: runId });
  }

  @Post('agents/:agent_id/runs/:run_id/input-requests/:request_id')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Answer an input request; its run is dispatched again with the answer',
    description:
      'A 400 names the field of the answer that breaks the request\'s schema; a 409 when the request was already answered, ' +
      'timed out, or its run ended; a 413 past 65,536 bytes of answer.',
  })
  @ApiParam({ name: 'agent_id', format: 'uuid' })
  @ApiParam({ name: 'run_id', format: 'uuid' })
  @ApiParam({ name: 'request_id', format: 'uuid' })
  @ApiOkResponse({ type: InputRequestResponse })
  @ApiProblems(400, 401, 404, 409, 413)
  answer(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('run_id') runId: string,
    @Param('request_id') requestId: string,
    @Body() body: AnswerInputRequestBody,
  ): Promise<InputRequestResponse> {
    return this.services.request(caller, RunsPatterns.AnswerInputRequest, {
      answer: body.answer,
      agent_id: agentId,
      run_id: runId,
      request_id: requestId,
      api_key_id: caller.keyId ?? null,
    });
  }
}
