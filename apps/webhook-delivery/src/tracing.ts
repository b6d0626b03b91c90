import { startTracing } from '@aas/platform/tracing';

startTracing('webhook-delivery');
