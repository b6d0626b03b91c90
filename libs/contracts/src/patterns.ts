/**
 * Every request/response message pattern, named `<service>.<resource>.<action>`:
 * the first segment selects the service's request stream (libs/transport).
 */
export const AgentsPatterns = {
  Health: 'agents.health.check',
  Me: 'agents.identity.me',
  ListApiKeys: 'agents.api-keys.list',
  CreateApiKey: 'agents.api-keys.create',
  RevokeApiKey: 'agents.api-keys.revoke',
  VerifyApiKey: 'agents.api-keys.verify',
  ConsoleSetupStatus: 'agents.console.setup-status',
  ConsoleSetup: 'agents.console.setup',
  CheckSetupToken: 'agents.console.setup-token-check',
  LoginCredentials: 'agents.console.login-credentials',
  CreateConsoleSession: 'agents.console.session-create',
  VerifyConsoleSession: 'agents.console.session-verify',
  EndConsoleSession: 'agents.console.session-end',
  ListAgents: 'agents.agents.list',
  CreateAgent: 'agents.agents.create',
  GetAgent: 'agents.agents.get',
  DeleteAgent: 'agents.agents.delete',
  MoveAgent: 'agents.agents.move',
  UpdateAgent: 'agents.agents.update',
  ListWorkspaces: 'agents.workspaces.list',
  CreateWorkspace: 'agents.workspaces.create',
  UpdateWorkspace: 'agents.workspaces.update',
  DeleteWorkspace: 'agents.workspaces.delete',
  ReorderWorkspaces: 'agents.workspaces.reorder',
  GetInstructions: 'agents.instructions.get',
  PutInstructions: 'agents.instructions.put',
  ListInstructionVersions: 'agents.instructions.history',
  /**
   * Service to service (every service, on every request about an agent): the agent is the caller's (else a
   * 404), its generation and its deployment; nothing else, so the check stays one indexed read.
   */
  GetOwnedAgent: 'agents.agents.owned',
  /** Service to service (runs-service): the agent a run needs, with its instructions and owner's email. */
  GetAgentForRun: 'agents.runs.agent-context',
  /**
   * Service to service (runs-service): one kept version of an agent's instructions, for a replay pinned
   * to the version its origin ran (null once the versions-kept limit pruned it).
   */
  GetInstructionsVersion: 'agents.instructions.version',
  /** Service to service (runs-service): what starting a batch of runs needs of each agent, in one request. */
  GetAgentsForRunStarts: 'agents.runs.start-contexts',
  /** Service to service (runs-service): a user's live agents with their generations, for runs across agents. */
  ListLiveAgents: 'agents.runs.live-agents',
  /**
   * Service to service (runs-service): apply what runs' ends change of their agents (latest_run_*,
   * deployment, a build run's instructions) before the ends become visible. Idempotent, batched.
   */
  RecordRunEnds: 'agents.runs.record-ends',
  /** Service to service (runs-service, once per retention purge): the agents of workspaces with their own run retention. */
  RunRetentions: 'agents.runs.retentions',
} as const;

export const RunsPatterns = {
  Health: 'runs.health.check',
  StartRun: 'runs.runs.start',
  ListRuns: 'runs.runs.list',
  /** GET /v1/runs: the caller's runs across all their live agents. */
  ListAllRuns: 'runs.runs.list-all',
  GetRun: 'runs.runs.get',
  CancelRun: 'runs.runs.cancel',
  /** POST …/runs/{run_id}/replay: a new run with the origin's input, through the one acceptance path. */
  ReplayRun: 'runs.runs.replay',
  DeleteRun: 'runs.runs.delete',
  /** DELETE /v1/runs: the caller's finished runs matching GET /v1/runs's filters, deleted in batches by the purge. */
  DeleteRuns: 'runs.runs.delete-matching',
  ListRunEvents: 'runs.events.list',
  /** Service to service (scheduler-service): the runs of many fires at once, each fire on its own. */
  StartScheduledRuns: 'runs.runs.start-scheduled-batch',
  /** Service to service (scheduler-service): runs started by triggers (inbound calls, run ends), each on its own. */
  StartTriggeredRuns: 'runs.runs.start-triggered-batch',
  /** Gateway: where the runs of its open event streams stand, in one request (a safety net for lost pushes). */
  RunStreamHeads: 'runs.streams.heads',
  /** The agent runtime's tool catalogue (GET /v1/tools). */
  ListTools: 'runs.tools.list',
  /** Input requests (docs/input-requests.md): one run's, the caller's across agents, and an answer. */
  ListRunInputRequests: 'runs.input-requests.list-run',
  ListInputRequests: 'runs.input-requests.list',
  AnswerInputRequest: 'runs.input-requests.answer',
  /** GET and PUT /v1/budgets: the caller's spending budget and spend (docs/budgets.md). */
  GetUserBudget: 'runs.budgets.get-user',
  PutUserBudget: 'runs.budgets.put-user',
  /** GET and PUT /v1/agents/{agent_id}/budget: an agent's spending budget and spend. */
  GetAgentBudget: 'runs.budgets.get-agent',
  PutAgentBudget: 'runs.budgets.put-agent',
  /** POST /v1/bulk-actions: cancel or replay many runs as one tracked job (docs/bulk-actions.md). */
  CreateBulkAction: 'runs.bulk-actions.create',
  GetBulkAction: 'runs.bulk-actions.get',
  ListBulkActions: 'runs.bulk-actions.list',
  AbortBulkAction: 'runs.bulk-actions.abort',
  ListBulkActionRuns: 'runs.bulk-actions.runs',
} as const;

export const SchedulerPatterns = {
  Health: 'scheduler.health.check',
  GetSchedule: 'scheduler.schedules.get',
  PutSchedule: 'scheduler.schedules.put',
  DeleteSchedule: 'scheduler.schedules.delete',
  PauseSchedule: 'scheduler.schedules.pause',
  ResumeSchedule: 'scheduler.schedules.resume',
  ListSchedules: 'scheduler.schedules.list',
  BackfillSchedule: 'scheduler.schedules.backfill',
  PreviewSchedule: 'scheduler.schedules.preview',
  ListTriggers: 'scheduler.triggers.list',
  CreateTrigger: 'scheduler.triggers.create',
  GetTrigger: 'scheduler.triggers.get',
  UpdateTrigger: 'scheduler.triggers.update',
  DeleteTrigger: 'scheduler.triggers.delete',
  RotateTrigger: 'scheduler.triggers.rotate',
  InboundHook: 'scheduler.triggers.inbound',
  /**
   * Service to service (runs-service): apply what runs' ends change in scheduler-service (a schedule's
   * unfinished run and failure count, the event triggers that follow the agent) before the ends become
   * visible. Idempotent, batched.
   */
  RecordRunEnds: 'scheduler.runs.record-ends',
} as const;

export const WebhooksPatterns = {
  Health: 'webhooks.health.check',
  ListWebhooks: 'webhooks.webhooks.list',
  CreateWebhook: 'webhooks.webhooks.create',
  GetWebhook: 'webhooks.webhooks.get',
  UpdateWebhook: 'webhooks.webhooks.update',
  DeleteWebhook: 'webhooks.webhooks.delete',
  ListDeliveries: 'webhooks.deliveries.list',
  Redeliver: 'webhooks.deliveries.redeliver',
  GetDelivery: 'webhooks.deliveries.get',
  RedeliverSince: 'webhooks.deliveries.redeliver-since',
  SendTestEvent: 'webhooks.deliveries.test',
} as const;

/** The services behind the gateway, by the health pattern readiness asks. */
export type HealthPattern =
  | typeof AgentsPatterns.Health
  | typeof RunsPatterns.Health
  | typeof SchedulerPatterns.Health
  | typeof WebhooksPatterns.Health;

export const BACKEND_HEALTH_PATTERNS: Record<string, HealthPattern> = {
  'agents-service': AgentsPatterns.Health,
  'runs-service': RunsPatterns.Health,
  'scheduler-service': SchedulerPatterns.Health,
  'webhook-delivery': WebhooksPatterns.Health,
};

const EVERY_PATTERN: readonly string[] = [AgentsPatterns, RunsPatterns, SchedulerPatterns, WebhooksPatterns].flatMap((patterns) =>
  Object.values(patterns),
);

/** The patterns a service answers: those whose first segment is its stream (`scheduler`). */
export function patternsServedBy(stream: string): string[] {
  return EVERY_PATTERN.filter((pattern) => pattern.slice(0, pattern.indexOf('.')) === stream);
}

type PatternOf<T> = T[keyof T];
export type EveryPattern =
  | PatternOf<typeof AgentsPatterns>
  | PatternOf<typeof RunsPatterns>
  | PatternOf<typeof SchedulerPatterns>
  | PatternOf<typeof WebhooksPatterns>;
