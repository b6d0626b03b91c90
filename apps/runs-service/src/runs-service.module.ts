import { DynamicModule, Module } from '@nestjs/common';
import { EVENT_QUEUES, EventNames } from '@aas/contracts';
import { OutboxModule, ServiceClientModule, queuesModule, serviceFoundation } from '@aas/platform';
import { runQueuedJobPriority } from './admission/job-priority';
import { AllRunsModule } from './all-runs/all-runs.module';
import { BulkActionsModule } from './bulk-actions/bulk-actions.module';
import { RUNS_SERVICE } from './runs-service.definition';
import { ExecutionModule } from './execution/execution.module';
import { InputRequestsModule } from './input-requests/input-requests.module';
import { MaintenanceModule } from './maintenance/maintenance.module';
import { RunsModule } from './runs/runs.module';

@Module({})
export class RunsServiceModule {
  static forRoot(overrides: Record<string, string> = {}): DynamicModule {
    return {
      module: RunsServiceModule,
      imports: [
        ...serviceFoundation(RUNS_SERVICE, overrides),
        queuesModule(),
        // A run's job waits behind fewer of other users' jobs the fewer runs its user has executing (admission/).
        OutboxModule.forRoutes(EVENT_QUEUES, { [EventNames.RunQueued]: runQueuedJobPriority }),
        ServiceClientModule,
        RunsModule,
        ExecutionModule,
        InputRequestsModule,
        AllRunsModule,
        MaintenanceModule,
        BulkActionsModule,
      ],
    };
  }
}
