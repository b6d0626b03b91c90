import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, MaxLength, Min, Max } from 'class-validator';
import { IsWellFormedText } from './text.validators';

export const RUN_LIST_DEFAULT_PAGE_SIZE = 100;
export const RUN_LIST_MAX_PAGE_SIZE = 1000;
/** GET /v1/runs counts matching runs exactly up to this many; beyond, its total is an estimate unless kept counts give it. */
export const RUN_LIST_EXACT_TOTAL_MAX = 10_000;
export const RUN_EVENTS_DEFAULT_LIMIT = 1000;
export const RUN_EVENTS_MAX_LIMIT = 10_000;
export const USER_MESSAGE_MAX_LENGTH = 100_000;

export const RUN_STATUSES = ['in_progress', 'completed', 'error', 'stopped', 'paused'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export const RUN_OUTCOMES = ['success', 'partial', 'fail'] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];
export type RunMode = 'build' | 'run';
export const RUN_KINDS = ['api', 'schedule', 'webhook', 'event'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** What a run's model calls used, added up from the runtime's `usage` lines (an addition to the contract). */
export class RunUsage {
  @ApiProperty({ type: 'integer', format: 'int64' })
  input_tokens!: number;

  @ApiProperty({ type: 'integer', format: 'int64' })
  output_tokens!: number;

  @ApiProperty({ type: 'integer', format: 'int32', description: 'The usage lines the runtime sent (one per model call, or per batch of calls)' })
  model_calls!: number;
}

/** The Run of the spec's table, plus is_paused from the start-run response, and usage and credits_consumed. */
export class RunDto {
  @ApiProperty({ format: 'uuid' })
  run_id!: string;

  @ApiProperty({ format: 'uuid' })
  agent_id!: string;

  @ApiProperty({ type: 'integer', format: 'int32' })
  run_number!: number;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty({ format: 'date-time' })
  last_event_at!: string;

  @ApiProperty({ type: 'integer', format: 'int64' })
  event_count!: number;

  @ApiProperty({ type: 'integer', format: 'int64' })
  event_bytes!: number;

  @ApiProperty({ type: 'integer', format: 'int64' })
  step_count!: number;

  @ApiProperty()
  is_finished!: boolean;

  @ApiProperty()
  is_paused!: boolean;

  @ApiPropertyOptional({ type: 'string', nullable: true, enum: RUN_STATUSES })
  status!: RunStatus | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The user_message the run was started with' })
  goal!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  policy_model!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  policy_type!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'api or schedule' })
  run_kind!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  schedule_agent_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The inbound webhook trigger that started the run' })
  webhook_subscription_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The trigger (webhook or event) that started the run' })
  trigger_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  user_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  user_email!: string | null;

  @ApiPropertyOptional({ type: 'boolean', nullable: true })
  wrote_instructions!: boolean | null;

  @ApiPropertyOptional({ format: 'date-time', description: 'Present once the run is finished' })
  finished_at?: string;

  @ApiProperty({ type: RunUsage, description: 'Tokens the runtime reported (zeros until it reports any)' })
  usage!: RunUsage;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', nullable: true, description: 'usage priced by CREDIT_PRICES; null until the runtime reports usage' })
  credits_consumed!: number | null;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    nullable: true,
    description: "The version of the agent's instructions (GET …/instructions/history) the run was dispatched with; null before it starts or when the agent had none",
  })
  instructions_version_id!: number | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: "A triggered run's input as kept: an inbound call's payload and headers, or the run event that fired an event trigger; null for other runs",
  })
  trigger_data!: Record<string, unknown> | null;

  @ApiProperty({ format: 'date-time', nullable: true, description: "A scheduled run's fire time (also the dispatch's scheduled_for); null for other runs" })
  scheduled_for!: string | null;

  @ApiProperty({ type: 'string', format: 'uuid', nullable: true, description: 'The run this run replays (POST …/runs/{run_id}/replay); null for other runs' })
  replay_of!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    description: 'The run whose end started this run through an event trigger; null for other runs',
  })
  source_run_id!: string | null;
}

export class ToolIcon {
  @ApiProperty()
  action_type!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  favicon_url!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  icon!: string | null;
}

export class RunSummaryDto {
  @ApiProperty({ format: 'uuid' })
  run_id!: string;

  @ApiProperty({ type: 'integer', format: 'int32' })
  run_number!: number;

  @ApiProperty({ format: 'date-time' })
  started_at!: string;

  @ApiProperty()
  is_finished!: boolean;

  @ApiProperty()
  is_paused!: boolean;

  @ApiProperty({ type: [ToolIcon] })
  tool_icons!: ToolIcon[];

  @ApiProperty({ type: 'integer', format: 'int32' })
  total_action_count!: number;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  attention_reason!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, enum: RUN_OUTCOMES })
  outcome!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'The run status' })
  run_phase!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  run_kind!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  trigger_kind!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  summary!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  title!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  policy_model!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  policy_type!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  schedule_agent_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  webhook_subscription_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  trigger_id!: string | null;

  @ApiPropertyOptional({ type: 'integer', format: 'int32', nullable: true })
  credits_consumed!: number | null;

  @ApiPropertyOptional({ type: 'boolean', nullable: true })
  wrote_instructions!: boolean | null;

  @ApiProperty({ type: RunUsage, description: 'Tokens the runtime reported (an addition to the contract)' })
  usage!: RunUsage;
}

export class RunResponse {
  @ApiProperty({ type: RunDto })
  run!: RunDto;
}

export class RunListResponse {
  @ApiProperty({ type: [RunDto] })
  runs!: RunDto[];

  @ApiProperty({ type: 'integer' })
  total_runs!: number;

  @ApiProperty({ type: 'integer' })
  page!: number;

  @ApiProperty({ type: 'integer' })
  page_size!: number;

  @ApiProperty({ type: [RunSummaryDto] })
  all_run_summaries!: RunSummaryDto[];
}

export class RunEventItem {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 })
  event_index!: number;

  @ApiProperty({ format: 'date-time' })
  recorded_at!: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { started: {} } })
  event!: Record<string, unknown>;
}

export class RunEventsResponse {
  @ApiProperty({ type: [RunEventItem] })
  events!: RunEventItem[];

  @ApiProperty({ type: 'integer', format: 'int64' })
  total_count!: number;
}

export class StartRunRequest {
  @ApiPropertyOptional({ enum: ['build', 'run'], default: 'run' })
  @IsOptional()
  @IsIn(['build', 'run'])
  run_mode?: RunMode;

  @ApiPropertyOptional({ maxLength: USER_MESSAGE_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @MaxLength(USER_MESSAGE_MAX_LENGTH)
  @IsWellFormedText()
  user_message?: string;

  @ApiPropertyOptional({ description: 'Start a run-mode run even if the agent is not deployed' })
  @IsOptional()
  @IsBoolean()
  skip_deploy_check?: boolean;
}

export const REPLAY_INSTRUCTIONS = ['original', 'current'] as const;
export type ReplayInstructions = (typeof REPLAY_INSTRUCTIONS)[number];

/** POST …/runs/{run_id}/replay: which instructions the replay runs with; the input is the origin's. */
export class ReplayRunRequest {
  @ApiPropertyOptional({
    enum: REPLAY_INSTRUCTIONS,
    default: 'original',
    description: "original: the instructions version the run ran (409 when it was pruned); current: the agent's instructions when the replay starts",
  })
  @IsOptional()
  @IsIn(REPLAY_INSTRUCTIONS)
  instructions?: ReplayInstructions;
}

export class CancelRunRequest {
  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  @IsWellFormedText()
  reason?: string | null;
}

export class ListRunsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 1, description: '1-based; 0 is treated as 1' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  page?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: RUN_LIST_MAX_PAGE_SIZE,
    default: RUN_LIST_DEFAULT_PAGE_SIZE,
    description: `0 means the default (${RUN_LIST_DEFAULT_PAGE_SIZE})`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(RUN_LIST_MAX_PAGE_SIZE)
  page_size?: number;

  @ApiPropertyOptional({ description: 'A run status, or `finished` for every finished run' })
  @IsOptional()
  @IsIn([...RUN_STATUSES, 'finished'])
  filter_status?: string;

  @ApiPropertyOptional({ description: 'Exact run id' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  @IsWellFormedText()
  filter_run_id?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Runs started at or after this time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  filter_started_after?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Runs started at or before this time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  filter_started_before?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(256)
  @IsWellFormedText()
  filter_policy_type?: string;

  @ApiPropertyOptional({ enum: ['builder', 'runner'], description: 'builder: build runs; runner: run-mode runs' })
  @IsOptional()
  @IsIn(['builder', 'runner'])
  filter_policy_group?: 'builder' | 'runner';

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(320)
  @IsWellFormedText()
  filter_user_email?: string;

  @ApiPropertyOptional({ description: 'Runs whose goal contains this text (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  @IsWellFormedText()
  filter_goal?: string;

  @ApiPropertyOptional({ enum: RUN_KINDS, description: 'Runs started this way: api, schedule, webhook (an inbound trigger) or event (an event trigger)' })
  @IsOptional()
  @IsIn(RUN_KINDS)
  filter_trigger_kind?: RunKind;

  @ApiPropertyOptional({ format: 'uuid', description: 'The replays of this run (their replay_of)' })
  @IsOptional()
  @IsUUID()
  filter_replay_of?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "The runs this run's end started through event triggers (their source_run_id)" })
  @IsOptional()
  @IsUUID()
  filter_source_run_id?: string;
}

/** GET /v1/runs: the per-agent list's filters, plus which agents. */
export class ListAllRunsQuery extends ListRunsQuery {
  @ApiPropertyOptional({ format: 'uuid', description: "Only this agent's runs (none when it is not the caller's)" })
  @IsOptional()
  @IsUUID()
  filter_agent_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: "Only the runs of this workspace's agents (none when it is not the caller's)" })
  @IsOptional()
  @IsUUID()
  filter_workspace_id?: string;
}

/** DELETE /v1/runs: the filters of GET /v1/runs, without paging; only finished runs are deleted. */
export class DeleteRunsQuery extends OmitType(ListAllRunsQuery, ['page', 'page_size'] as const) {}

/** DELETE /v1/runs: accepted; the runs are deleted in batches shortly after (docs/retention.md). */
export class RunDeletionResponse {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    description: 'The finished runs the filters matched when the request was accepted: those that will be deleted',
  })
  matched_runs!: number;
}

export class AllRunsListResponse extends RunListResponse {
  @ApiProperty({
    description: `false: total_runs is exact. true: more than ${RUN_LIST_EXACT_TOTAL_MAX} runs match and total_runs is the database's estimate`,
  })
  total_runs_is_estimate!: boolean;
}

export class RunEventsQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: RUN_EVENTS_MAX_LIMIT, description: `0 or absent means ${RUN_EVENTS_DEFAULT_LIMIT}` })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(RUN_EVENTS_MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'Only events after this index',
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  // Larger values lose precision as numbers, and beyond bigint they fail the query (a 500 before this bound).
  @Max(Number.MAX_SAFE_INTEGER)
  after_index?: number;
}
