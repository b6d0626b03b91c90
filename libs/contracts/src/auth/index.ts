export * from './api-key-token';
export * from './auth-redis-keys';
