import { serviceEntryPoints } from '@aas/platform';
import { WEBHOOKS_SERVICE } from './webhook-delivery.definition';
import { WebhooksServiceModule } from './webhook-delivery.module';

export const { start: startWebhooksService, migrate: migrateWebhooksSchema } = serviceEntryPoints(WEBHOOKS_SERVICE, (overrides) =>
  WebhooksServiceModule.forRoot(overrides),
);
