// Tracing first: it must load before the modules it instruments (http, pg, ioredis, undici).
import './tracing';
import 'reflect-metadata';
import { runServiceMain } from '@aas/platform';
import { migrateRunsSchema, startRunsService } from './runs-service.app';

runServiceMain('runs-service', { start: () => startRunsService(), migrate: () => migrateRunsSchema() });
