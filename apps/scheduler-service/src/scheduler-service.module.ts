import { DynamicModule, Module } from '@nestjs/common';
import { serviceFoundation } from '@aas/platform';
import { SCHEDULER_SERVICE } from './scheduler-service.definition';

@Module({})
export class SchedulerServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return { module: SchedulerServiceModule, imports: serviceFoundation(SCHEDULER_SERVICE, overrides) };
  }
}
