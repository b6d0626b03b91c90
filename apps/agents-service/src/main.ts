import 'reflect-metadata';
import { runServiceMain } from '@aas/platform';
import { migrateAgentsSchema, startAgentsService } from './agents-service.app';

runServiceMain('agents-service', { start: () => startAgentsService(), migrate: () => migrateAgentsSchema() });
