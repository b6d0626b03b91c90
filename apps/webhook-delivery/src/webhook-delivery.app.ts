import { INestApplication } from '@nestjs/common';
import { dataSourceOptionsFromEnv, migrateSchema, startServiceApp, validateEnv } from '@aas/platform';
import { WebhooksServiceModule } from './webhook-delivery.module';
import { WebhooksEnv } from './config/webhooks.env';
import { WEBHOOKS_SCHEMA } from './database/webhooks-schema';

export function startWebhooksService(overrides: Record<string, string> = {}): Promise<INestApplication> {
  return startServiceApp(WebhooksServiceModule.forRoot(overrides), 'webhooks');
}

export function migrateWebhooksSchema(overrides: Record<string, string> = {}): Promise<string[]> {
  const env = validateEnv(WebhooksEnv, { ...process.env, ...overrides });
  return migrateSchema(dataSourceOptionsFromEnv(WEBHOOKS_SCHEMA, env));
}
