export * from './data-source-options';
export * from './migrate';
export * from './service-database.module';
