import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AgentsPatterns, ApiKeyList, CreateApiKeyRequest, CreatedApiKey, RevokeApiKeyResponse } from '@aas/contracts';
import { CallerId, CallerSessionId, RequestId } from '../caller/caller';
import { ApiProblems } from '../openapi/api-problems.decorator';
import { ServiceClient } from '@aas/platform';

@ApiTags('API keys')
@Controller('api/public/v1/access-api-keys')
export class ApiKeysController {
  constructor(private readonly services: ServiceClient) {}

  @Get()
  @ApiOperation({ summary: 'List the active API keys of the caller (prefixes only)' })
  @ApiOkResponse({ type: ApiKeyList })
  @ApiProblems(401)
  list(@CallerId() userId: string, @RequestId() requestId: string): Promise<ApiKeyList> {
    return this.services.request(AgentsPatterns.ListApiKeys, { user_id: userId }, requestId);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create an API key; the full key is returned only in this response (a key made by a console session is listed by the next password reset)',
  })
  @ApiCreatedResponse({ type: CreatedApiKey })
  @ApiProblems(400, 401, 422)
  create(
    @CallerId() userId: string,
    @CallerSessionId() sessionId: string | undefined,
    @RequestId() requestId: string,
    @Body() body: CreateApiKeyRequest,
  ): Promise<CreatedApiKey> {
    return this.services.request(AgentsPatterns.CreateApiKey, { user_id: userId, name: body.name, session_id: sessionId }, requestId);
  }

  @Delete(':key_id')
  @HttpCode(200)
  @ApiOperation({ summary: 'Revoke an API key; it stops working on its next request' })
  @ApiOkResponse({ type: RevokeApiKeyResponse })
  @ApiProblems(401, 404)
  revoke(
    @CallerId() userId: string,
    @RequestId() requestId: string,
    @Param('key_id') keyId: string,
  ): Promise<RevokeApiKeyResponse> {
    return this.services.request(AgentsPatterns.RevokeApiKey, { user_id: userId, key_id: keyId }, requestId);
  }
}
