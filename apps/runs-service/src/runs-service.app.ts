import { serviceEntryPoints } from '@aas/platform';
import { RUNS_SERVICE } from './runs-service.definition';
import { RunsServiceModule } from './runs-service.module';

export const { start: startRunsService, migrate: migrateRunsSchema } = serviceEntryPoints(RUNS_SERVICE, (overrides) =>
  RunsServiceModule.forRoot(overrides),
);
