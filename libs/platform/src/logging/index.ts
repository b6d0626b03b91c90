export * from './loggable-url';
export * from './logging.module';
export * from './request-log';
