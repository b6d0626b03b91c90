export * from './batcher';
