export * from './queue-workers.drain';
export * from './queues.module';
