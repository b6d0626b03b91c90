export * from './redis-streams.server';
export * from './redis-streams.client';
export * from './streams-rpc.context';
export * from './rpc-message';
export * from './stream-keys';
