export * from './api-key-token';
export * from './auth-redis-keys';
export * from './password-hash';
export * from './console-tokens';
