import { DynamicModule, Module } from '@nestjs/common';
import { SchedulerPatterns } from '@aas/contracts';
import { RedisModule, ServiceHealthModule, loggingModule, serviceDatabaseModule, settingsModule } from '@aas/platform';
import { SchedulerEnv } from './config/scheduler.env';
import { SCHEDULER_SCHEMA } from './database/scheduler-schema';

@Module({})
export class SchedulerServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: SchedulerServiceModule,
      imports: [
        settingsModule(SchedulerEnv, overrides),
        loggingModule('scheduler-service'),
        serviceDatabaseModule(SCHEDULER_SCHEMA),
        RedisModule,
        ServiceHealthModule.forService(SchedulerPatterns.Health),
      ],
    };
  }
}
