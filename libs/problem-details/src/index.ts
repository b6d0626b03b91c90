export * from './problem-detail';
export * from './problem-code';
export * from './domain-error';
export * from './to-problem';
export * from './problem-details.filter';
export * from './validation';
export * from './outage';
export * from './request-shape';
