import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AgentsPatterns,
  ApiKeyList,
  CreateApiKeyMessage,
  CreatedApiKey,
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

  @MessagePattern(AgentsPatterns.ListApiKeys)
  async list(@Payload() message: UserScopedMessage): Promise<ApiKeyList> {
    return { keys: await this.apiKeys.list(message.user_id) };
  }

  @MessagePattern(AgentsPatterns.CreateApiKey)
  create(@Payload() message: CreateApiKeyMessage): Promise<CreatedApiKey> {
    return this.apiKeys.create(message.user_id, message.name, message.session_id);
  }

  @MessagePattern(AgentsPatterns.RevokeApiKey)
  revoke(@Payload() message: RevokeApiKeyMessage): Promise<RevokeApiKeyResponse> {
    return this.apiKeys.revoke(message.user_id, message.key_id);
  }

  @MessagePattern(AgentsPatterns.VerifyApiKey)
  verify(@Payload() message: VerifyApiKeyMessage): Promise<VerifiedApiKey | null> {
    return this.apiKeys.verify(message.key_hash);
  }
}
