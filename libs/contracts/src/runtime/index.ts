export * from './runtime-protocol';
