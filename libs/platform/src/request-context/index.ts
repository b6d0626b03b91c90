export * from './job-request-context';
export * from './request-context';
