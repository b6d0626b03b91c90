import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentsPatterns, MeResponse } from '@aas/contracts';
import { CallerId, RequestId } from '../caller/caller';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { ServiceClient } from '@aas/platform';

@ApiTags('Identity')
@Controller('v1/me')
export class MeController {
  constructor(private readonly services: ServiceClient) {}

  @Get()
  @ApiOperation({ summary: 'The user the API key belongs to' })
  @ApiOkResponse({ type: MeResponse })
  @ApiProblems(401)
  me(@CallerId() userId: string, @RequestId() requestId: string): Promise<MeResponse> {
    return this.services.request(AgentsPatterns.Me, { user_id: userId }, requestId);
  }
}
