import { startTracing } from '@aas/platform/tracing';

startTracing('agent-runtime');
