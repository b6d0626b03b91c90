export * from './batcher';
export * from './split-on-failure';
