import { Controller, Delete, Get, HttpCode, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllRunsListResponse, DeleteRunsQuery, ListAllRunsQuery, RunDeletionResponse, RunsPatterns } from '@aas/contracts';
import { JsonBody } from '@aas/platform';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { RelaysJson } from '../http/relays-json';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Runs')
@Controller('v1/runs')
export class AllRunsController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({
    summary: "List the caller's runs across all their agents, newest first, with the per-agent list's filters",
    description:
      'A deleted agent\'s runs never appear. filter_agent_id or filter_workspace_id naming an agent or workspace that is not the caller\'s matches no run. ' +
      'total_runs is exact up to 10,000 matching runs; beyond, it is exact when only status, policy, group and email filters apply, else the database\'s estimate with total_runs_is_estimate true.',
  })
  @ApiOkResponse({ type: AllRunsListResponse })
  @ApiProblems(400, 401)
  @RelaysJson()
  list(@Caller() caller: Caller, @Query() query: ListAllRunsQuery): Promise<JsonBody<AllRunsListResponse>> {
    return this.services.requestJson(caller, RunsPatterns.ListAllRuns, query);
  }

  @Delete()
  @HttpCode(202)
  @ApiOperation({
    summary: "Delete the caller's finished runs that GET /v1/runs lists under the same filters",
    description:
      'Answers at once with how many finished runs matched; they are deleted with their events and webhook deliveries shortly after, in batches. ' +
      'Runs not finished when the request is accepted are never deleted. One deletion per user at a time: another while one is in progress is a 429 with Retry-After.',
  })
  @ApiAcceptedResponse({ type: RunDeletionResponse })
  @ApiProblems(400, 401, 429)
  deleteMatching(@Caller() caller: Caller, @Query() query: DeleteRunsQuery): Promise<RunDeletionResponse> {
    return this.services.request(caller, RunsPatterns.DeleteRuns, { ...query });
  }
}
