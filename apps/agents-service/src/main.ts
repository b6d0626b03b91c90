// Tracing first: it must load before the modules it instruments (http, pg, ioredis, undici).
import './tracing';
import 'reflect-metadata';
import { runServiceMain } from '@aas/platform';
import { migrateAgentsSchema, startAgentsService } from './agents-service.app';

runServiceMain('agents-service', { start: () => startAgentsService(), migrate: () => migrateAgentsSchema() });
