/**
 * Durable events between services. Each event is put on the queue of every
 * app that consumes it (docs/architecture.md, "Queues and events"); the job name is the event
 * name and the job id the outbox event id, so a re-publish is de-duplicated
 * and consumers must be idempotent.
 */
export const QueueNames = {
  RunsEvents: 'runs-events',
  RunsExecution: 'runs-execution',
  SchedulerEvents: 'scheduler-events',
  WebhooksEvents: 'webhooks-events',
  AgentsEvents: 'agents-events',
  SchedulerFires: 'scheduler-fires',
  WebhookDeliveries: 'webhook-deliveries',
} as const;

export type QueueName = (typeof QueueNames)[keyof typeof QueueNames];

export const EventNames = {
  AgentDeleted: 'agent.deleted',
  RunQueued: 'run.queued',
  RunStarted: 'run.started',
  RunCompleted: 'run.completed',
  RunFailed: 'run.failed',
  RunStopped: 'run.stopped',
  RunPaused: 'run.paused',
  RunProgress: 'run.progress',
  ScheduleFire: 'schedule.fire',
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

/**
 * An agent and everything of it is gone; each consumer deletes what it holds of the agent.
 * `generation` is the deleted agent's (see AgentContext): a consumer deletes only what belongs
 * to that generation or an older one, never what an agent created since with the same id holds.
 * Absent in events of an earlier version.
 */
export interface AgentDeletedEvent {
  agent_id: string;
  user_id: string;
  deleted_at: string;
  generation?: number;
}

/** A run was accepted and waits for a runs worker. */
export interface RunQueuedEvent {
  run_id: string;
}

/** The spec's webhook body fields, for webhook delivery and the scheduler. */
export interface RunLifecycleEvent {
  event: RunLifecycleEventName;
  run_id: string;
  agent_id: string;
  user_id: string;
  status: string;
  outcome?: string;
  finished_at?: string;
  run_kind: string;
  schedule_agent_id: string | null;
  timestamp: string;
  /** Event-trigger hops from the run that started the chain (absent from runs-services before triggers: 0). */
  trigger_depth?: number;
  /** The run's summary when it ended, for event triggers' templates. */
  summary?: string | null;
  /** The generation of the agent the run belongs to; null for runs accepted by an earlier version. */
  agent_generation?: number | null;
}

/**
 * What agents-service keeps about an agent's runs. `seq` orders the
 * snapshots of one run (its event index) and `run_number` orders runs, so a
 * consumer applies only snapshots newer than the one it holds, in any order.
 */
export interface RunProgressEvent {
  run_id: string;
  agent_id: string;
  user_id: string;
  run_number: number;
  run_mode: string;
  seq: number;
  status: string;
  is_finished: boolean;
  has_pending_input: boolean;
  last_chat_message?: string;
  policy_type: string | null;
  /** The run has written the agent's instructions (a build run's `instructions` line). */
  wrote_instructions: boolean;
  /** Set when a build run completed with outcome success: the agent is deployed. */
  deployed_at?: string;
  at: string;
  /** The generation of the agent the run belongs to: a recreated agent is not changed by the old one's runs. */
  agent_generation?: number | null;
}

/** A schedule came due: start one run for this fire time. */
export interface ScheduleFireEvent {
  agent_id: string;
  user_id: string;
  fire_time: string;
  /** The generation of the agent whose schedule fired; null for schedules set by an earlier version. */
  agent_generation?: number | null;
}

/** Which queues each event is delivered to. */
export const EVENT_QUEUES: Record<EventName, readonly QueueName[]> = {
  [EventNames.AgentDeleted]: [QueueNames.RunsEvents, QueueNames.SchedulerEvents, QueueNames.WebhooksEvents],
  [EventNames.RunQueued]: [QueueNames.RunsExecution],
  [EventNames.RunStarted]: [QueueNames.WebhooksEvents],
  [EventNames.RunCompleted]: [QueueNames.WebhooksEvents, QueueNames.SchedulerEvents],
  [EventNames.RunFailed]: [QueueNames.WebhooksEvents, QueueNames.SchedulerEvents],
  [EventNames.RunStopped]: [QueueNames.WebhooksEvents, QueueNames.SchedulerEvents],
  [EventNames.RunPaused]: [QueueNames.WebhooksEvents, QueueNames.SchedulerEvents],
  [EventNames.RunProgress]: [QueueNames.AgentsEvents],
  [EventNames.ScheduleFire]: [QueueNames.SchedulerFires],
};
