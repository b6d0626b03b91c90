export * from './service-app';
export * from './service-definition';
export * from './service-main';
export * from './shutdown-signals';
