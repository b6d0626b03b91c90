import { DynamicModule, Module } from '@nestjs/common';
import { AgentsPatterns } from '@aas/contracts';
import { RedisModule, ServiceHealthModule, loggingModule, serviceDatabaseModule, settingsModule } from '@aas/platform';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { BootstrapApiKey } from './api-keys/bootstrap-api-key';
import { AgentsEnv } from './config/agents.env';
import { AGENTS_SCHEMA } from './database/agents-schema';
import { UsersModule } from './users/users.module';

@Module({})
export class AgentsServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: AgentsServiceModule,
      imports: [
        settingsModule(AgentsEnv, overrides),
        loggingModule('agents-service'),
        serviceDatabaseModule(AGENTS_SCHEMA),
        RedisModule,
        ServiceHealthModule.forService(AgentsPatterns.Health),
        UsersModule,
        ApiKeysModule,
      ],
      providers: [BootstrapApiKey],
    };
  }
}
