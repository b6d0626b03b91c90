import 'reflect-metadata';
import { runServiceMain } from '@aas/platform';
import { migrateSchedulerSchema, startSchedulerService } from './scheduler-service.app';

runServiceMain('scheduler-service', { start: () => startSchedulerService(), migrate: () => migrateSchedulerSchema() });
