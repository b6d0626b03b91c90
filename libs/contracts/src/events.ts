/**
 * Durable events between services. Each event is put on the queue of every
 * app that consumes it (architecture.md, point 2); the job name is the event
 * name and the job id the event id, so a re-publish is de-duplicated and
 * consumers must be idempotent.
 */
export const QueueNames = {
  RunsEvents: 'runs-events',
  SchedulerEvents: 'scheduler-events',
  WebhooksEvents: 'webhooks-events',
  AgentsEvents: 'agents-events',
} as const;

export type QueueName = (typeof QueueNames)[keyof typeof QueueNames];

export const EventNames = {
  AgentDeleted: 'agent.deleted',
} as const;

export type EventName = (typeof EventNames)[keyof typeof EventNames];

/** An agent and everything of it is gone; each consumer deletes what it holds of the agent. */
export interface AgentDeletedEvent {
  agent_id: string;
  user_id: string;
  deleted_at: string;
}

/** Which queues each event is delivered to. */
export const EVENT_QUEUES: Record<EventName, QueueName[]> = {
  [EventNames.AgentDeleted]: [QueueNames.RunsEvents, QueueNames.SchedulerEvents, QueueNames.WebhooksEvents],
};
