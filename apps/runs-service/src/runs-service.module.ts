import { DynamicModule, Module } from '@nestjs/common';
import { RunsPatterns } from '@aas/contracts';
import { RedisModule, ServiceHealthModule, loggingModule, serviceDatabaseModule, settingsModule } from '@aas/platform';
import { RunsEnv } from './config/runs.env';
import { RUNS_SCHEMA } from './database/runs-schema';

@Module({})
export class RunsServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: RunsServiceModule,
      imports: [
        settingsModule(RunsEnv, overrides),
        loggingModule('runs-service'),
        serviceDatabaseModule(RUNS_SCHEMA),
        RedisModule,
        ServiceHealthModule.forService(RunsPatterns.Health),
      ],
    };
  }
}
