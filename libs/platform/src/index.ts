export * from './config';
export * from './database';
export * from './redis';
export * from './logging';
export * from './health';
export * from './bootstrap';
export * from './queues/queues.module';
export * from './outbox';
