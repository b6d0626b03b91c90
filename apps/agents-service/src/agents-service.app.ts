import { serviceEntryPoints } from '@aas/platform';
import { AGENTS_SERVICE } from './agents-service.definition';
import { AgentsServiceModule } from './agents-service.module';

export const { start: startAgentsService, migrate: migrateAgentsSchema } = serviceEntryPoints(AGENTS_SERVICE, (overrides) =>
  AgentsServiceModule.forRoot(overrides),
);
