import { startTracing } from '@aas/platform/tracing';

startTracing('agents-service');
