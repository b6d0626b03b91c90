/**
 * Every BullMQ queue of the system. Each is served by one app (docs/architecture.md, "Queues and
 * events"); what its jobs are called and carry is in JOB_REGISTRY (job-registry.ts).
 */
export const QueueNames = {
  RunsEvents: 'runs-events',
  RunsExecution: 'runs-execution',
  RunsMaintenance: 'runs-maintenance',
  RunsBulkActions: 'runs-bulk-actions',
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
  PurgeExpiredRuns: 'purge-expired-runs',
  PurgeRequestedRuns: 'purge-requested-runs',
  SweepLostDeliveries: 'sweep-lost-deliveries',
} as const;

/**
 * The service (its request stream, as patterns.ts names them) whose workers consume each queue; each
 * app refuses to start unless it consumes exactly its own queues, each with one worker.
 */
export const QUEUE_CONSUMERS: Record<QueueName, string> = {
  [QueueNames.RunsEvents]: 'runs',
  [QueueNames.RunsExecution]: 'runs',
  [QueueNames.RunsMaintenance]: 'runs',
  [QueueNames.RunsBulkActions]: 'runs',
  [QueueNames.SchedulerEvents]: 'scheduler',
  [QueueNames.SchedulerFires]: 'scheduler',
  [QueueNames.WebhooksEvents]: 'webhooks',
  [QueueNames.WebhookDeliveries]: 'webhooks',
  [QueueNames.WebhooksMaintenance]: 'webhooks',
  [QueueNames.AgentsEvents]: 'agents',
};

/** The queues `stream`'s workers must consume. */
export function queuesConsumedBy(stream: string): QueueName[] {
  return (Object.keys(QUEUE_CONSUMERS) as QueueName[]).filter((queue) => QUEUE_CONSUMERS[queue] === stream);
}
