import { startTracing } from '@aas/platform/tracing';

startTracing('scheduler-service');
