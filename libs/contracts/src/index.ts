export * from './patterns';
export * from './auth';
export * from './messages';
export * from './dto';
export * from './jobs';
export * from './runtime';
export * from './requests';
