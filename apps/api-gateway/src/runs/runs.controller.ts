import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import {
  CancelRunRequest,
  ListRunsQuery,
  ReplayRunRequest,
  RunEventsQuery,
  RunEventsResponse,
  RunListResponse,
  RunResponse,
  RunsPatterns,
  StartRunRequest,
  SuccessResponse,
} from '@aas/contracts';
import { JsonBody } from '@aas/platform';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { RelaysJson } from '../http/relays-json';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Runs')
@ApiParam({ name: 'agent_id', format: 'uuid' })
@Controller('v1/agents/:agent_id/runs')
export class RunsController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: "List an agent's runs, newest first, with filters" })
  @ApiOkResponse({ type: RunListResponse })
  @ApiProblems(400, 401, 404)
  @RelaysJson()
  list(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Query() query: ListRunsQuery,
  ): Promise<JsonBody<RunListResponse>> {
    return this.services.requestJson(caller, RunsPatterns.ListRuns, { ...query, agent_id: agentId });
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Start a run; it is queued and executed by a runs worker',
    description: 'A 422 quota-exceeded (waiting_runs_per_user) while the caller has QUOTA_WAITING_RUNS_PER_USER runs waiting for admission.',
  })
  @ApiHeader({
    name: 'idempotency-key',
    required: false,
    description: 'Repeating a start with the same key within 24 hours returns the same run instead of a second one',
  })
  @ApiCreatedResponse({ type: RunResponse })
  @ApiProblems(400, 401, 404, 409, 422)
  start(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Body() body: StartRunRequest,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<RunResponse> {
    const payload = { ...body, agent_id: agentId };
    return this.services.request(caller, RunsPatterns.StartRun,
      idempotencyKey === undefined ? payload : { ...payload, idempotency_key: idempotencyKey });
  }

  @Get(':run_id')
  @ApiOperation({ summary: 'One run' })
  @ApiOkResponse({ type: RunResponse })
  @ApiProblems(401, 404)
  @RelaysJson()
  get(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('run_id') runId: string,
  ): Promise<JsonBody<RunResponse>> {
    return this.services.requestJson(caller, RunsPatterns.GetRun, { agent_id: agentId, run_id: runId });
  }

  @Delete(':run_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a run and its events; a running run is cancelled first' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(401, 404)
  async delete(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('run_id') runId: string,
  ): Promise<void> {
    await this.services.request(caller, RunsPatterns.DeleteRun, { agent_id: agentId, run_id: runId });
  }

  @Post(':run_id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a run; cancelling a finished run changes nothing and is not an error' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiProblems(400, 401, 404)
  cancel(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('run_id') runId: string,
    @Body() body: CancelRunRequest = {},
  ): Promise<SuccessResponse> {
    return this.services.request(caller, RunsPatterns.CancelRun,
      { ...body, agent_id: agentId, run_id: runId });
  }

  @Post(':run_id/replay')
  @HttpCode(201)
  @ApiOperation({
    summary: "Replay a run: a new run with its input, on the instructions version it ran or the agent's current ones",
    description:
      'Accepted like a start (quotas, limits, Idempotency-Key). 409 when the instructions version it ran was pruned ' +
      '(QUOTA_INSTRUCTION_VERSIONS_KEPT) or its input is no longer kept; the new run names its origin in replay_of.',
  })
  @ApiHeader({
    name: 'idempotency-key',
    required: false,
    description: 'Repeating a replay (or a start) with the same key within 24 hours returns the same run instead of a second one',
  })
  @ApiCreatedResponse({ type: RunResponse })
  @ApiProblems(400, 401, 404, 409, 422)
  replay(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('run_id') runId: string,
    @Body() body: ReplayRunRequest = {},
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<RunResponse> {
    const payload = { ...body, agent_id: agentId, run_id: runId };
    return this.services.request(caller, RunsPatterns.ReplayRun,
      idempotencyKey === undefined ? payload : { ...payload, idempotency_key: idempotencyKey });
  }

  @Get(':run_id/events')
  @ApiOperation({ summary: "A run's recorded events in index order" })
  @ApiOkResponse({ type: RunEventsResponse })
  @ApiProblems(400, 401, 404)
  @RelaysJson()
  events(
    @Caller() caller: Caller,
    @Param('agent_id') agentId: string,
    @Param('run_id') runId: string,
    @Query() query: RunEventsQuery,
  ): Promise<JsonBody<RunEventsResponse>> {
    return this.services.requestJson(caller, RunsPatterns.ListRunEvents,
      { ...query, agent_id: agentId, run_id: runId });
  }
}
