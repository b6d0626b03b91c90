export * from './app-queue-workers';
export * from './queue-metrics';
export * from './queue-workers.drain';
export * from './queues.module';
export * from './worker-lock';
export * from './periodic-job';
export * from './consumed-queues';
