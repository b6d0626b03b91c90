export * from './window-rate-limiter';
