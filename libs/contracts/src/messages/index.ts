export * from './user-scoped.message';
export * from './api-keys.messages';
export * from './catalogue.messages';
export * from './runs.messages';
export * from './run-event-push';
export * from './schedules.messages';
export * from './webhooks.messages';
export * from './console.messages';
