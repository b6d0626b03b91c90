import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RunsPatterns, ToolListResponse } from '@aas/contracts';
import { ServiceClient } from '@aas/platform';
import { CallerId, RequestId } from '../caller/caller';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Tools')
@Controller('v1/tools')
export class ToolsController {
  constructor(private readonly services: ServiceClient) {}

  @Get()
  @ApiOperation({
    summary: "The tools the agent runtime offers, for plan steps' `tools` (empty with the built-in runtime or a version 1 runtime)",
  })
  @ApiOkResponse({ type: ToolListResponse })
  @ApiProblems(401, 503)
  list(@CallerId() userId: string, @RequestId() requestId: string): Promise<ToolListResponse> {
    return this.services.request(RunsPatterns.ListTools, { user_id: userId }, requestId);
  }
}
