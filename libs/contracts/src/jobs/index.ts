export * from './events';
export * from './job-registry';
export * from './payloads';
export * from './queues';
export * from './parse-job';
