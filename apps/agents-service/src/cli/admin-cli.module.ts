import { DynamicModule, Module } from '@nestjs/common';
import { RedisModule, serviceDatabaseModule, settingsModule } from '@aas/platform';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AgentsEnv } from '../config/agents.env';
import { ConsoleSessionsAdminModule } from '../console-sessions/console-sessions.module';
import { AGENTS_SCHEMA } from '../database/agents-schema';
import { UsersModule } from '../users/users.module';

/** What the admin command line needs: the agents schema and Redis (for revocation markers); no transport. */
@Module({})
export class AdminCliModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: AdminCliModule,
      imports: [settingsModule(AgentsEnv, overrides), serviceDatabaseModule(AGENTS_SCHEMA), RedisModule, UsersModule, ApiKeysModule, ConsoleSessionsAdminModule],
    };
  }
}
