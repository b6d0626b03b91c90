import { startTracing } from '@aas/platform/tracing';

startTracing('api-gateway');
