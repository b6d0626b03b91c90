/**
 * Every BullMQ queue of the system. Each is served by one app (docs/architecture.md, "Queues and
 * events"); what its jobs are called and carry is in JOB_REGISTRY (job-registry.ts).
 */
export const QueueNames = {
  RunsEvents: 'runs-events',
  RunsExecution: 'runs-execution',
  RunsMaintenance: 'runs-maintenance',
  SchedulerEvents: 'scheduler-events',
  SchedulerFires: 'scheduler-fires',
  WebhooksEvents: 'webhooks-events',
  WebhookDeliveries: 'webhook-deliveries',
  WebhooksMaintenance: 'webhooks-maintenance',
  AgentsEvents: 'agents-events',
} as const;

export type QueueName = (typeof QueueNames)[keyof typeof QueueNames];

/** Jobs that are not events: a delivery to send, and the periodic upkeep of runs-service and webhook-delivery. */
export const JobNames = {
  Deliver: 'deliver',
  PurgeIdempotencyKeys: 'purge-idempotency-keys',
  PurgeRunListTotals: 'purge-run-list-totals',
  PurgeDeletedAgentGenerations: 'purge-deleted-agent-generations',
  PurgeIdleRunChains: 'purge-idle-run-chains',
  SweepLostDeliveries: 'sweep-lost-deliveries',
} as const;
