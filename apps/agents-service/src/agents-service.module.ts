import { DynamicModule, Module } from '@nestjs/common';
import { serviceFoundation } from '@aas/platform';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { BootstrapApiKey } from './api-keys/bootstrap-api-key';
import { AGENTS_SERVICE } from './agents-service.definition';
import { UsersModule } from './users/users.module';

@Module({})
export class AgentsServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: AgentsServiceModule,
      imports: [...serviceFoundation(AGENTS_SERVICE, overrides), UsersModule, ApiKeysModule],
      providers: [BootstrapApiKey],
    };
  }
}
