// Tracing first: it must load before the modules it instruments (http, pg, ioredis, undici).
import './tracing';
import 'reflect-metadata';
import { runServiceMain } from '@aas/platform';
import { migrateWebhooksSchema, startWebhooksService } from './webhook-delivery.app';

runServiceMain('webhook-delivery', { start: () => startWebhooksService(), migrate: () => migrateWebhooksSchema() });
