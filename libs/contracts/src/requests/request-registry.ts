import type {
  BudgetResponse,
  AgentListResponse,
  BulkActionListResponse,
  BulkActionResponse,
  BulkActionRunListResponse,
  AllRunsListResponse,
  ToolListResponse,
  InputRequestListResponse,
  InputRequestResponse,

  AgentResponse,
  ApiKeyList,
  BackfillScheduleResponse,
  ConsoleSetupStatus,
  CreatedApiKey,
  CreatedWebhookDto,
  DeleteWorkspaceResponse,
  DeliveryDto,
  DeliveryListResponse,
  InboundHookResponse,
  InstructionHistoryResponse,
  InstructionsResponse,
  MeResponse,
  RedeliverSinceResponse,
  ReorderWorkspacesResponse,
  RevokeApiKeyResponse,
  RunEventsResponse,
  RunListResponse,
  RunDeletionResponse,
  RunResponse,
  ScheduleListResponse,
  SchedulePreviewResponse,
  ScheduleResponse,
  SuccessResponse,
  TriggerDto,
  TriggerListResponse,
  WebhookDto,
  WebhookListResponse,
  WorkspaceListResponse,
  WorkspaceResponse,
} from '../dto';
import type {
  AgentBudgetMessage,
  PutAgentBudgetMessage,
  PutUserBudgetMessage,
  UserBudgetMessage,
  BulkActionRefMessage,
  CreateBulkActionMessage,
  ListBulkActionRunsMessage,
  ListBulkActionsMessage,
  AgentContext,
  AgentContextMessage,
  InstructionsVersionMessage,
  InstructionsVersionResponse,
  ReplayRunMessage,
  ListAllRunsMessage,
  LiveAgentsMessage,
  LiveAgentsResponse,
  RunRetentionsMessage,
  DeleteRunsMessage,
  RunRetentionsResponse,
  RecordRunEndsMessage,
  RecordRunEndsResponse,
  ListToolsMessage,
  ListRunInputRequestsMessage,
  ListInputRequestsMessage,
  AnswerInputRequestMessage,
  UpdateAgentMessage,
  AgentRefMessage,
  AgentScheduleMessage,
  AgentStartContextsMessage,
  AgentStartContextsResponse,
  AgentTriggersMessage,
  AgentWebhooksMessage,
  BackfillScheduleMessage,
  CancelRunMessage,
  CheckSetupTokenMessage,
  ConsoleSession,
  ConsoleSessionTokenMessage,
  ConsoleSetupMessage,
  CreateAgentMessage,
  CreateApiKeyMessage,
  CreateConsoleSessionMessage,
  CreateTriggerMessage,
  CreateWebhookMessage,
  CreateWorkspaceMessage,
  DeliveryRefMessage,
  InboundHookMessage,
  InstructionHistoryMessage,
  ListAgentsMessage,
  ListDeliveriesMessage,
  ListRunsMessage,
  LoginCredentials,
  LoginCredentialsMessage,
  MoveAgentMessage,
  OwnedAgent,
  OwnedAgentMessage,
  PreviewScheduleMessage,
  PutInstructionsMessage,
  PutScheduleMessage,
  RedeliverMessage,
  RedeliverSinceMessage,
  ReorderWorkspacesMessage,
  RevokeApiKeyMessage,
  RunEventsMessage,
  RunRefMessage,
  RunStreamHeadsMessage,
  RunStreamHeadsResponse,
  SendTestEventMessage,
  StartRunMessage,
  StartScheduledRunsMessage,
  StartScheduledRunsResponse,
  StartTriggeredRunsMessage,
  StartTriggeredRunsResponse,
  TriggerRefMessage,
  TriggerWithCredentials,
  UpdateTriggerMessage,
  UpdateWebhookMessage,
  UpdateWorkspaceMessage,
  UserScopedMessage,
  VerifiedApiKey,
  VerifyApiKeyMessage,
  WebhookRefMessage,
  WorkspaceRefMessage,
} from '../messages';

import { AgentsPatterns, EveryPattern, RunsPatterns, SchedulerPatterns, WebhooksPatterns } from '../patterns';

/** One request between apps: what the caller sends and what the handler answers. */
export interface RequestType<TMessage, TAnswer> {
  message: TMessage;
  answer: TAnswer;
}

/** The answer of every service's health pattern (libs/platform's health module): each dependency, `up` or why not. */
export interface HealthAnswer {
  ready: boolean;
  checks: Record<string, string>;
}

/**
 * Every request/response pattern with its message and its answer: the one place both sides of a request
 * agree on. `ServiceClient.request` takes its types from here, and `@HandlesRequest` checks each handler
 * against it, so a wrong payload or answer is a compile error. The app that serves a pattern is named by
 * its first segment (patterns.ts).
 */
export interface RequestRegistry {
  [AgentsPatterns.Health]: RequestType<Record<string, never>, HealthAnswer>;
  [AgentsPatterns.Me]: RequestType<UserScopedMessage, MeResponse>;
  [AgentsPatterns.ListAgents]: RequestType<ListAgentsMessage, AgentListResponse>;
  [AgentsPatterns.CreateAgent]: RequestType<CreateAgentMessage, AgentResponse>;
  [AgentsPatterns.GetAgent]: RequestType<AgentRefMessage, AgentResponse>;
  [AgentsPatterns.DeleteAgent]: RequestType<AgentRefMessage, { deleted: true }>;
  [AgentsPatterns.UpdateAgent]: RequestType<UpdateAgentMessage, AgentResponse>;
  [AgentsPatterns.RecordRunEnds]: RequestType<RecordRunEndsMessage, RecordRunEndsResponse>;
  [AgentsPatterns.MoveAgent]: RequestType<MoveAgentMessage, SuccessResponse>;
  [AgentsPatterns.ListWorkspaces]: RequestType<UserScopedMessage, WorkspaceListResponse>;
  [AgentsPatterns.CreateWorkspace]: RequestType<CreateWorkspaceMessage, WorkspaceResponse>;
  [AgentsPatterns.UpdateWorkspace]: RequestType<UpdateWorkspaceMessage, WorkspaceResponse>;
  [AgentsPatterns.DeleteWorkspace]: RequestType<WorkspaceRefMessage, DeleteWorkspaceResponse>;
  [AgentsPatterns.ReorderWorkspaces]: RequestType<ReorderWorkspacesMessage, ReorderWorkspacesResponse>;
  [AgentsPatterns.GetInstructions]: RequestType<AgentRefMessage, InstructionsResponse>;
  [AgentsPatterns.PutInstructions]: RequestType<PutInstructionsMessage, SuccessResponse>;
  [AgentsPatterns.ListInstructionVersions]: RequestType<InstructionHistoryMessage, InstructionHistoryResponse>;
  [AgentsPatterns.ListApiKeys]: RequestType<UserScopedMessage, ApiKeyList>;
  [AgentsPatterns.CreateApiKey]: RequestType<CreateApiKeyMessage, CreatedApiKey>;
  [AgentsPatterns.RevokeApiKey]: RequestType<RevokeApiKeyMessage, RevokeApiKeyResponse>;
  [AgentsPatterns.VerifyApiKey]: RequestType<VerifyApiKeyMessage, VerifiedApiKey | null>;
  [AgentsPatterns.ConsoleSetupStatus]: RequestType<Record<string, never>, ConsoleSetupStatus>;
  [AgentsPatterns.ConsoleSetup]: RequestType<ConsoleSetupMessage, ConsoleSession>;
  [AgentsPatterns.CheckSetupToken]: RequestType<CheckSetupTokenMessage, { valid: true }>;
  [AgentsPatterns.LoginCredentials]: RequestType<LoginCredentialsMessage, LoginCredentials | null>;
  [AgentsPatterns.CreateConsoleSession]: RequestType<CreateConsoleSessionMessage, ConsoleSession>;
  [AgentsPatterns.VerifyConsoleSession]: RequestType<ConsoleSessionTokenMessage, ConsoleSession | null>;
  [AgentsPatterns.EndConsoleSession]: RequestType<ConsoleSessionTokenMessage, { ended: boolean }>;
  [AgentsPatterns.GetOwnedAgent]: RequestType<OwnedAgentMessage, OwnedAgent>;
  [AgentsPatterns.GetAgentForRun]: RequestType<AgentContextMessage, AgentContext>;
  [AgentsPatterns.GetInstructionsVersion]: RequestType<InstructionsVersionMessage, InstructionsVersionResponse>;
  [AgentsPatterns.GetAgentsForRunStarts]: RequestType<AgentStartContextsMessage, AgentStartContextsResponse>;
  [AgentsPatterns.ListLiveAgents]: RequestType<LiveAgentsMessage, LiveAgentsResponse>;
  [AgentsPatterns.RunRetentions]: RequestType<RunRetentionsMessage, RunRetentionsResponse>;
  [RunsPatterns.Health]: RequestType<Record<string, never>, HealthAnswer>;
  [RunsPatterns.ListTools]: RequestType<ListToolsMessage, ToolListResponse>;
  [RunsPatterns.ListRunInputRequests]: RequestType<ListRunInputRequestsMessage, InputRequestListResponse>;
  [RunsPatterns.ListInputRequests]: RequestType<ListInputRequestsMessage, InputRequestListResponse>;
  [RunsPatterns.AnswerInputRequest]: RequestType<AnswerInputRequestMessage, InputRequestResponse>;
  [RunsPatterns.GetUserBudget]: RequestType<UserBudgetMessage, BudgetResponse>;
  [RunsPatterns.PutUserBudget]: RequestType<PutUserBudgetMessage, BudgetResponse>;
  [RunsPatterns.GetAgentBudget]: RequestType<AgentBudgetMessage, BudgetResponse>;
  [RunsPatterns.PutAgentBudget]: RequestType<PutAgentBudgetMessage, BudgetResponse>;
  [RunsPatterns.StartRun]: RequestType<StartRunMessage, RunResponse>;
  [RunsPatterns.StartScheduledRuns]: RequestType<StartScheduledRunsMessage, StartScheduledRunsResponse>;
  [RunsPatterns.StartTriggeredRuns]: RequestType<StartTriggeredRunsMessage, StartTriggeredRunsResponse>;
  [RunsPatterns.ListRuns]: RequestType<ListRunsMessage, RunListResponse>;
  [RunsPatterns.ListAllRuns]: RequestType<ListAllRunsMessage, AllRunsListResponse>;
  [RunsPatterns.GetRun]: RequestType<RunRefMessage, RunResponse>;
  [RunsPatterns.ListRunEvents]: RequestType<RunEventsMessage, RunEventsResponse>;
  [RunsPatterns.RunStreamHeads]: RequestType<RunStreamHeadsMessage, RunStreamHeadsResponse>;
  [RunsPatterns.CancelRun]: RequestType<CancelRunMessage, SuccessResponse>;
  [RunsPatterns.ReplayRun]: RequestType<ReplayRunMessage, RunResponse>;
  [RunsPatterns.DeleteRun]: RequestType<RunRefMessage, { deleted: true }>;
  [RunsPatterns.DeleteRuns]: RequestType<DeleteRunsMessage, RunDeletionResponse>;
  [RunsPatterns.CreateBulkAction]: RequestType<CreateBulkActionMessage, BulkActionResponse>;
  [RunsPatterns.GetBulkAction]: RequestType<BulkActionRefMessage, BulkActionResponse>;
  [RunsPatterns.ListBulkActions]: RequestType<ListBulkActionsMessage, BulkActionListResponse>;
  [RunsPatterns.AbortBulkAction]: RequestType<BulkActionRefMessage, BulkActionResponse>;
  [RunsPatterns.ListBulkActionRuns]: RequestType<ListBulkActionRunsMessage, BulkActionRunListResponse>;
  [SchedulerPatterns.Health]: RequestType<Record<string, never>, HealthAnswer>;
  [SchedulerPatterns.GetSchedule]: RequestType<AgentScheduleMessage, ScheduleResponse>;
  [SchedulerPatterns.RecordRunEnds]: RequestType<RecordRunEndsMessage, RecordRunEndsResponse>;
  [SchedulerPatterns.PutSchedule]: RequestType<PutScheduleMessage, SuccessResponse>;
  [SchedulerPatterns.DeleteSchedule]: RequestType<AgentScheduleMessage, SuccessResponse>;
  [SchedulerPatterns.PauseSchedule]: RequestType<AgentScheduleMessage, SuccessResponse>;
  [SchedulerPatterns.ResumeSchedule]: RequestType<AgentScheduleMessage, SuccessResponse>;
  [SchedulerPatterns.BackfillSchedule]: RequestType<BackfillScheduleMessage, BackfillScheduleResponse>;
  [SchedulerPatterns.PreviewSchedule]: RequestType<PreviewScheduleMessage, SchedulePreviewResponse>;
  [SchedulerPatterns.ListSchedules]: RequestType<UserScopedMessage, ScheduleListResponse>;
  [SchedulerPatterns.ListTriggers]: RequestType<AgentTriggersMessage, TriggerListResponse>;
  [SchedulerPatterns.CreateTrigger]: RequestType<CreateTriggerMessage, TriggerWithCredentials>;
  [SchedulerPatterns.GetTrigger]: RequestType<TriggerRefMessage, TriggerDto>;
  [SchedulerPatterns.UpdateTrigger]: RequestType<UpdateTriggerMessage, TriggerDto>;
  [SchedulerPatterns.DeleteTrigger]: RequestType<TriggerRefMessage, { deleted: true }>;
  [SchedulerPatterns.RotateTrigger]: RequestType<TriggerRefMessage, TriggerWithCredentials>;
  [SchedulerPatterns.InboundHook]: RequestType<InboundHookMessage, InboundHookResponse>;
  [WebhooksPatterns.Health]: RequestType<Record<string, never>, HealthAnswer>;
  [WebhooksPatterns.ListDeliveries]: RequestType<ListDeliveriesMessage, DeliveryListResponse>;
  [WebhooksPatterns.GetDelivery]: RequestType<DeliveryRefMessage, DeliveryDto>;
  [WebhooksPatterns.Redeliver]: RequestType<RedeliverMessage, DeliveryDto>;
  [WebhooksPatterns.RedeliverSince]: RequestType<RedeliverSinceMessage, RedeliverSinceResponse>;
  [WebhooksPatterns.SendTestEvent]: RequestType<SendTestEventMessage, DeliveryDto>;
  [WebhooksPatterns.ListWebhooks]: RequestType<AgentWebhooksMessage, WebhookListResponse>;
  [WebhooksPatterns.CreateWebhook]: RequestType<CreateWebhookMessage, CreatedWebhookDto>;
  [WebhooksPatterns.GetWebhook]: RequestType<WebhookRefMessage, WebhookDto>;
  [WebhooksPatterns.UpdateWebhook]: RequestType<UpdateWebhookMessage, WebhookDto>;
  [WebhooksPatterns.DeleteWebhook]: RequestType<WebhookRefMessage, { deleted: true }>;
}

export type RequestPattern = keyof RequestRegistry;
export type RequestMessage<P extends RequestPattern> = RequestRegistry[P]['message'];
export type RequestAnswer<P extends RequestPattern> = RequestRegistry[P]['answer'];

/** A pattern of patterns.ts left out of the registry fails to compile here. */
const _everyPatternRegistered: [Exclude<EveryPattern, RequestPattern>] extends [never] ? true : never = true;
void _everyPatternRegistered;
