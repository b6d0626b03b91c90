import { serviceEntryPoints } from '@aas/platform';
import { SCHEDULER_SERVICE } from './scheduler-service.definition';
import { SchedulerServiceModule } from './scheduler-service.module';

export const { start: startSchedulerService, migrate: migrateSchedulerSchema } = serviceEntryPoints(SCHEDULER_SERVICE, (overrides) =>
  SchedulerServiceModule.forRoot(overrides),
);
