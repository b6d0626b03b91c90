import { DynamicModule, Module } from '@nestjs/common';
import { EVENT_QUEUES } from '@aas/contracts';
import { OutboxModule, ServiceClientModule, queuesModule, serviceFoundation } from '@aas/platform';
import { FiringModule } from './firing/firing.module';
import { SCHEDULER_SERVICE } from './scheduler-service.definition';
import { SchedulesModule } from './schedules/schedules.module';
import { TriggersModule } from './triggers/triggers.module';

@Module({})
export class SchedulerServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: SchedulerServiceModule,
      imports: [
        ...serviceFoundation(SCHEDULER_SERVICE, overrides),
        queuesModule(),
        OutboxModule.forRoutes(EVENT_QUEUES),
        ServiceClientModule,
        SchedulesModule,
        TriggersModule,
        FiringModule,
      ],
    };
  }
}
