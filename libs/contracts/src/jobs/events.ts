/**
 * Durable events between services. Each event is put on the queue of every app that consumes it
 * (EVENT_QUEUES, job-registry.ts); the job name is the event name and the job id the outbox event id,
 * so a re-publish is de-duplicated and consumers must be idempotent.
 */
export const EventNames = {
  AgentDeleted: 'agent.deleted',
  RunQueued: 'run.queued',
  RunStarted: 'run.started',
  RunCompleted: 'run.completed',
  RunFailed: 'run.failed',
  RunStopped: 'run.stopped',
  RunPaused: 'run.paused',
  RunProgress: 'run.progress',
  RunInstructions: 'run.instructions',
  RunAgentName: 'run.agent_name',
  ScheduleFire: 'schedule.fire',
  RunsPurged: 'runs.purged',
  /** runs-service to itself: the next chunk of a bulk action is due (docs/bulk-actions.md). */
  BulkActionChunk: 'bulk_action.chunk',
} as const;

export type EventName = (typeof EventNames)[keyof typeof EventNames];

/** The run lifecycle events a webhook can subscribe to (spec section 6). */
export const RUN_LIFECYCLE_EVENTS = [
  EventNames.RunStarted,
  EventNames.RunCompleted,
  EventNames.RunFailed,
  EventNames.RunStopped,
  EventNames.RunPaused,
] as const;
export type RunLifecycleEventName = (typeof RUN_LIFECYCLE_EVENTS)[number];

/** The lifecycle events that end a run, or pause it: what the scheduler and event triggers act on. */
export const RUN_END_EVENTS = [EventNames.RunCompleted, EventNames.RunFailed, EventNames.RunStopped, EventNames.RunPaused] as const;
