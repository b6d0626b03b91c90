import 'reflect-metadata';
import { runServiceMain } from '@aas/platform';
import { migrateWebhooksSchema, startWebhooksService } from './webhook-delivery.app';

runServiceMain('webhook-delivery', { start: () => startWebhooksService(), migrate: () => migrateWebhooksSchema() });
