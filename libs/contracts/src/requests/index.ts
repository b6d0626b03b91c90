export * from './request-registry';
export * from './handles-request';
