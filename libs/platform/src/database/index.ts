export * from './data-source-options';
export * from './migrate';
export * from './service-database.module';
export * from './prepared-entity-query';
export * from './transactions';
export * from './postgres-transactions';
export * from './in-memory-tables';
export * from './nested-connection-guard';
