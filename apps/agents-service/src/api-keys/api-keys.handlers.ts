import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  AgentsPatterns,
  ApiKeyList,
  CreateApiKeyMessage,
  CreatedApiKey,
  HandlesRequest,
  RevokeApiKeyMessage,
  RevokeApiKeyResponse,
  UserScopedMessage,
  VerifiedApiKey,
  VerifyApiKeyMessage,
} from '@aas/contracts';
import { ApiKeysService } from './api-keys.service';

@Controller()
export class ApiKeysHandlers {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @HandlesRequest(AgentsPatterns.ListApiKeys)
  async list(@Payload() message: UserScopedMessage): Promise<ApiKeyList> {
    return { keys: await this.apiKeys.list(message.user_id) };
  }

  @HandlesRequest(AgentsPatterns.CreateApiKey)
  create(@Payload() message: CreateApiKeyMessage): Promise<CreatedApiKey> {
    return this.apiKeys.create(message.user_id, message.name, message.session_id);
  }

  @HandlesRequest(AgentsPatterns.RevokeApiKey)
  revoke(@Payload() message: RevokeApiKeyMessage): Promise<RevokeApiKeyResponse> {
    return this.apiKeys.revoke(message.user_id, message.key_id);
  }

  @HandlesRequest(AgentsPatterns.VerifyApiKey)
  verify(@Payload() message: VerifyApiKeyMessage): Promise<VerifiedApiKey | null> {
    return this.apiKeys.verify(message.key_hash);
  }
}
