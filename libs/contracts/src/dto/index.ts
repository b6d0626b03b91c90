export * from './problem-detail.dto';
export * from './identity.dto';
export * from './api-keys.dto';
