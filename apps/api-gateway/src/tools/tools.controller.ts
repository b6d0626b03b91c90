import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RunsPatterns, ToolListResponse } from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Tools')
@Controller('v1/tools')
export class ToolsController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({
    summary: "The tools the agent runtime offers, for plan steps' `tools` (empty with the built-in runtime or a version 1 runtime)",
  })
  @ApiOkResponse({ type: ToolListResponse })
  @ApiProblems(401, 503)
  list(@Caller() caller: Caller): Promise<ToolListResponse> {
    return this.services.request(caller, RunsPatterns.ListTools, {});
  }
}
