import { IntersectionType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, IsUUID, Matches, MaxLength, Min, ValidateNested } from 'class-validator';
import { AnswerInputRequestBody, ListInputRequestsQuery } from '../dto/input-requests.dto';
import { CancelRunRequest, DeleteRunsQuery, ListAllRunsQuery, ListRunsQuery, ReplayRunRequest, RunEventsQuery, StartRunRequest } from '../dto/runs.dto';
import { AgentScopedMessage, RunScopedMessage, UserScopedMessage } from './user-scoped.message';

/** An Idempotency-Key header: 1-255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export class StartRunMessage extends IntersectionType(StartRunRequest, AgentScopedMessage) {
  /** The Idempotency-Key header: 1-255 visible ASCII characters. */
  @IsOptional()
  @Matches(IDEMPOTENCY_KEY, { message: 'Idempotency-Key must be 1-255 visible ASCII characters' })
  idempotency_key?: string;
}

export class RunRefMessage extends RunScopedMessage {}

export class ReplayRunMessage extends IntersectionType(ReplayRunRequest, RunScopedMessage) {
  /** The Idempotency-Key header, as on a start (StartRunMessage). */
  @IsOptional()
  @Matches(IDEMPOTENCY_KEY, { message: 'Idempotency-Key must be 1-255 visible ASCII characters' })
  idempotency_key?: string;
}

export class CancelRunMessage extends IntersectionType(CancelRunRequest, RunScopedMessage) {}
export class ListRunsMessage extends IntersectionType(ListRunsQuery, AgentScopedMessage) {}
export class ListAllRunsMessage extends IntersectionType(ListAllRunsQuery, UserScopedMessage) {}
export class DeleteRunsMessage extends IntersectionType(DeleteRunsQuery, UserScopedMessage) {}
export class RunEventsMessage extends IntersectionType(RunEventsQuery, RunScopedMessage) {}
export class ListToolsMessage extends UserScopedMessage {}

/** runs-service asks agents-service for what a run needs of its agent. */
export class AgentContextMessage extends AgentScopedMessage {}

/** One version of the agent's instructions (AgentsPatterns.GetInstructionsVersion). */
export class InstructionsVersionMessage extends AgentScopedMessage {
  @IsInt()
  @Min(1)
  version_id!: number;
}

/** The version as a run is dispatched with it; null: not among the agent's kept versions (pruned). */
export interface InstructionsVersionResponse {
  instructions: RunInstructionsVersion | null;
}

/** Is this agent the caller's? (AgentsPatterns.GetOwnedAgent) */
export class OwnedAgentMessage extends AgentScopedMessage {}

/**
 * An agent's generation tells apart two agents that had the same id one after the other (an id may be
 * chosen by the client, so a deleted agent's id can be taken again): it is the agent row's insertion
 * sequence, larger for every new row. Records other services keep of an agent carry it, so neither the
 * old agent's cleanup nor its late events touch the new one.
 */
export interface OwnedAgent {
  agent_id: string;
  generation: number;
  deployment_state: 'deployed' | 'not_deployed';
}

/** What executing a run needs of its agent (AgentsPatterns.GetAgentForRun). */
export interface AgentContext extends OwnedAgent {
  user_email: string;
  /** `plan_steps` is always an array, empty when the instructions have none (runtime-protocol.md). */
  instructions: RunInstructionsVersion | null;
}

/** Instructions as a run is dispatched with them. */
export interface RunInstructionsVersion {
  content: string;
  /** Always an array, empty when the instructions have none (runtime-protocol.md). */
  plan_steps: unknown[];
  /** The version these are (GET …/instructions/history). */
  version_id: number;
}

/** Most runs started by one batch request (a scheduler splits larger groups of fires). */
export const RUN_START_BATCH_MAX = 500;

/** One agent of a batch, with the user it must belong to. */
export class AgentOfUser {
  @IsUUID()
  user_id!: string;

  @IsUUID()
  agent_id!: string;
}

/** runs-service asks agents-service, in one request, what starting runs of these agents needs. */
export class AgentStartContextsMessage {
  @IsArray()
  @ArrayMaxSize(RUN_START_BATCH_MAX)
  @ValidateNested({ each: true })
  @Type(() => AgentOfUser)
  agents!: AgentOfUser[];
}

/** What starting a run needs of its agent; the instructions are read when the run executes. */
export interface AgentStartContext {
  agent_id: string;
  generation: number;
  user_id: string;
  user_email: string;
  deployment_state: 'deployed' | 'not_deployed';
}

/** An agent that does not exist, or is not the named user's, is left out. */
export interface AgentStartContextsResponse {
  agents: AgentStartContext[];
}

/** A user's live agents, narrowed to one workspace or one agent when given (AgentsPatterns.ListLiveAgents). */
export class LiveAgentsMessage extends UserScopedMessage {
  @IsOptional()
  @IsUUID()
  workspace_id?: string;

  @IsOptional()
  @IsUUID()
  agent_id?: string;
}

/** An agent that exists, with the generation its runs must carry (null-generation runs are older than generations). */
export interface LiveAgent {
  agent_id: string;
  generation: number;
}

export interface LiveAgentsResponse {
  agents: LiveAgent[];
}

export class ListRunInputRequestsMessage extends RunScopedMessage {}
export class ListInputRequestsMessage extends IntersectionType(ListInputRequestsQuery, UserScopedMessage) {}

/** An answer, with who gave it: the API key's id, or null when a console session answered. */
export class AnswerInputRequestMessage extends IntersectionType(AnswerInputRequestBody, RunScopedMessage) {
  @IsString()
  @MaxLength(256)
  request_id!: string;

  @IsOptional()
  @IsString()
  @MaxLength(256)
  api_key_id!: string | null;
}

/** Which agents' runs are kept other than RUN_RETENTION_DAYS says: those of workspaces with their own retention (AgentsPatterns.RunRetentions). */
export class RunRetentionsMessage {}

/** The agents of the workspaces whose run_retention_days is set, by that value (0: kept forever). */
export interface RunRetentionsResponse {
  retentions: Array<{ days: number; agent_ids: string[] }>;
}
