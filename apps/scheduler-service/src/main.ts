// Tracing first: it must load before the modules it instruments (http, pg, ioredis, undici).
import './tracing';
import 'reflect-metadata';
import { runServiceMain } from '@aas/platform';
import { migrateSchedulerSchema, startSchedulerService } from './scheduler-service.app';

runServiceMain('scheduler-service', { start: () => startSchedulerService(), migrate: () => migrateSchedulerSchema() });
