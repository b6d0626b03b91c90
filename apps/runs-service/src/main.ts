import 'reflect-metadata';
import { runServiceMain } from '@aas/platform';
import { migrateRunsSchema, startRunsService } from './runs-service.app';

runServiceMain('runs-service', { start: () => startRunsService(), migrate: () => migrateRunsSchema() });
