export * from './logging.module';
export * from './request-log';
