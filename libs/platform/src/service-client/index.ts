export * from './service-client';
export * from './service-client.module';
