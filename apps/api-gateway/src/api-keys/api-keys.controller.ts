import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentsPatterns, ApiKeyList, CreateApiKeyRequest, CreatedApiKey, RevokeApiKeyResponse } from '@aas/contracts';
import { Caller } from '../caller/caller';
import { CallerServices } from '../caller/caller-services';
import { ApiProblems } from '../openapi/api-problems.decorator';

@ApiTags('API keys')
@Controller('api/public/v1/access-api-keys')
export class ApiKeysController {
  constructor(private readonly services: CallerServices) {}

  @Get()
  @ApiOperation({ summary: 'List the active API keys of the caller (prefixes only)' })
  @ApiOkResponse({ type: ApiKeyList })
  @ApiProblems(401)
  list(@Caller() caller: Caller): Promise<ApiKeyList> {
    return this.services.request(caller, AgentsPatterns.ListApiKeys, {});
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an API key; the full key is returned only in this response (a key made by a console session is listed by the next password reset)',
  })
  @ApiCreatedResponse({ type: CreatedApiKey })
  @ApiProblems(400, 401, 422)
  create(@Caller() caller: Caller, @Body() body: CreateApiKeyRequest): Promise<CreatedApiKey> {
    return this.services.request(caller, AgentsPatterns.CreateApiKey, { name: body.name, session_id: caller.sessionId });
  }

  @Delete(':key_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke an API key; it stops working on its next request' })
  @ApiOkResponse({ type: RevokeApiKeyResponse })
  @ApiProblems(401, 404)
  revoke(
    @Caller() caller: Caller,
    @Param('key_id') keyId: string,
  ): Promise<RevokeApiKeyResponse> {
    return this.services.request(caller, AgentsPatterns.RevokeApiKey, { key_id: keyId });
  }
}
