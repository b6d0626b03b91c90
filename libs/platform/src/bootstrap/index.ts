export * from './service-app';
export * from './service-main';
