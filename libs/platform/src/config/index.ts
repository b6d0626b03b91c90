export * from './validate-env';
export * from './env-decorators';
export * from './common.env';
export * from './settings.module';
