import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AllRunsListResponse, ListAllRunsQuery, RunsPatterns } from '@aas/contracts';
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
}
