import { startTracing } from '@aas/platform/tracing';

startTracing('runs-service');
