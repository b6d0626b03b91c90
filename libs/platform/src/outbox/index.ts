export * from './outbox-event.entity';
export * from './record-event';
export * from './outbox.relay';
export * from './outbox.module';
export * from './outbox-table';
export * from './outbox-request-id.migration';
