import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentsPatterns, MeResponse } from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('Identity')
@Controller('v1/me')
export class MeController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: 'The user the API key belongs to' })
  @ApiOkResponse({ type: MeResponse })
  @ApiProblems(401)
  me(@Caller() caller: Caller): Promise<MeResponse> {
    return this.services.request(caller, AgentsPatterns.Me, {});
  }
}
