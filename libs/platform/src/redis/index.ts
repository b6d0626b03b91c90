export * from './redis-keyspace';
export * from './redis.module';
