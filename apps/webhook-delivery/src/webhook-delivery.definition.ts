import { WebhooksPatterns } from '@aas/contracts';
import { ServiceDefinition } from '@aas/platform';
import { WebhooksEnv } from './config/webhooks.env';
import { WEBHOOKS_SCHEMA } from './database/webhooks-schema';

export const WEBHOOKS_SERVICE: ServiceDefinition<WebhooksEnv> = {
  name: 'webhook-delivery',
  stream: 'webhooks',
  env: WebhooksEnv,
  schema: WEBHOOKS_SCHEMA,
  healthPattern: WebhooksPatterns.Health,
};
