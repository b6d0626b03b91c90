import { EventName, EventNames } from './events';
import { AgentDeletedEvent, BulkActionChunkEvent, DeliveryJobData, MaintenanceJob, RunAgentNameEvent, RunLifecycleEvent, RunInstructionsEvent, RunProgressEvent, RunQueuedEvent, RunsPurgedEvent, ScheduleFireEvent } from './payloads';
import { JobNames, QueueName, QueueNames } from './queues';

/**
 * Every queue, the names of the jobs it carries and what each carries: the one place a producer and
 * its consumer agree on a job. A consumer validates each job against it (parseJob in libs/platform).
 */
export const JOB_REGISTRY = {
  [QueueNames.RunsEvents]: { [EventNames.AgentDeleted]: AgentDeletedEvent },
  [QueueNames.RunsExecution]: { [EventNames.RunQueued]: RunQueuedEvent },
  [QueueNames.RunsMaintenance]: {
    [JobNames.PurgeIdempotencyKeys]: MaintenanceJob,
    [JobNames.PurgeRunListTotals]: MaintenanceJob,
    [JobNames.PurgeDeletedAgentGenerations]: MaintenanceJob,
    [JobNames.PurgeIdleRunChains]: MaintenanceJob,
    [JobNames.PurgeExpiredRuns]: MaintenanceJob,
    [JobNames.PurgeRequestedRuns]: MaintenanceJob,
  },
  [QueueNames.RunsBulkActions]: { [EventNames.BulkActionChunk]: BulkActionChunkEvent },
  [QueueNames.SchedulerEvents]: {
    [EventNames.AgentDeleted]: AgentDeletedEvent,
    [EventNames.RunCompleted]: RunLifecycleEvent,
    [EventNames.RunFailed]: RunLifecycleEvent,
    [EventNames.RunStopped]: RunLifecycleEvent,
    [EventNames.RunPaused]: RunLifecycleEvent,
  },
  [QueueNames.SchedulerFires]: { [EventNames.ScheduleFire]: ScheduleFireEvent },
  [QueueNames.WebhooksEvents]: {
    [EventNames.AgentDeleted]: AgentDeletedEvent,
    [EventNames.RunStarted]: RunLifecycleEvent,
    [EventNames.RunCompleted]: RunLifecycleEvent,
    [EventNames.RunFailed]: RunLifecycleEvent,
    [EventNames.RunStopped]: RunLifecycleEvent,
    [EventNames.RunPaused]: RunLifecycleEvent,
    [EventNames.RunsPurged]: RunsPurgedEvent,
  },
  [QueueNames.WebhookDeliveries]: { [JobNames.Deliver]: DeliveryJobData },
  [QueueNames.WebhooksMaintenance]: { [JobNames.SweepLostDeliveries]: MaintenanceJob },
  [QueueNames.AgentsEvents]: {
    [EventNames.RunProgress]: RunProgressEvent,
    [EventNames.RunInstructions]: RunInstructionsEvent,
    [EventNames.RunAgentName]: RunAgentNameEvent,
  },
} as const satisfies Record<QueueName, Record<string, new () => object>>;

type Registry = typeof JOB_REGISTRY;
export type JobNameOf<Q extends QueueName> = keyof Registry[Q] & string;
export type JobDataOf<Q extends QueueName, N extends JobNameOf<Q>> = Registry[Q][N] extends new () => infer T ? T : never;
/** A job of queue Q as its consumer sees it once validated: `switch (job.name)` narrows `data`. */
export type RegisteredJob<Q extends QueueName> = { [N in JobNameOf<Q>]: { name: N; data: JobDataOf<Q, N> } }[JobNameOf<Q>];

/** The queues each event is put on by the outbox relay: every queue whose registry lists it. */
export const EVENT_QUEUES: Record<EventName, readonly QueueName[]> = eventQueues();

function eventQueues(): Record<EventName, QueueName[]> {
  const byEvent = Object.fromEntries(Object.values(EventNames).map((event) => [event, [] as QueueName[]])) as Record<EventName, QueueName[]>;
  for (const [queue, jobs] of Object.entries(JOB_REGISTRY) as [QueueName, object][]) {
    for (const name of Object.keys(jobs)) if (name in byEvent) byEvent[name as EventName].push(queue);
  }
  return byEvent;
}
