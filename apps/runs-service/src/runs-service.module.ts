import { DynamicModule, Module } from '@nestjs/common';
import { EVENT_QUEUES } from '@aas/contracts';
import { OutboxModule, ServiceClientModule, queuesModule, serviceFoundation } from '@aas/platform';
import { RUNS_SERVICE } from './runs-service.definition';
import { RunsModule } from './runs/runs.module';

@Module({})
export class RunsServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: RunsServiceModule,
      imports: [
        ...serviceFoundation(RUNS_SERVICE, overrides),
        queuesModule(),
        OutboxModule.forRoutes(EVENT_QUEUES),
        ServiceClientModule,
        RunsModule,
      ],
    };
  }
}
