import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Max, Min, ValidateNested } from 'class-validator';
import { IsWellFormedText } from './text.validators';

export const AGENT_LIST_DEFAULT_LIMIT = 50;
export const AGENT_LIST_MAX_LIMIT = 200;

export class AgentName {
  @ApiProperty()
  name!: string;

  @ApiProperty({ type: 'string', nullable: true })
  explanation!: string | null;
}

/** The Agent of the spec's table, field for field. */
export class AgentDto {
  @ApiProperty({ format: 'uuid' })
  agent_id!: string;

  @ApiProperty()
  unread!: boolean;

  @ApiPropertyOptional({ type: AgentName, nullable: true })
  agent_name!: AgentName | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  workspace_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  active_build_run_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  latest_build_run_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  latest_instruction_build_run_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'An empty string until the agent has a run' })
  latest_run_id!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  latest_run_status!: string | null;

  @ApiPropertyOptional({ type: 'boolean', nullable: true })
  latest_run_is_finished!: boolean | null;

  @ApiPropertyOptional({ type: 'boolean', nullable: true })
  latest_run_has_pending_input!: boolean | null;

  @ApiPropertyOptional({ type: 'boolean', nullable: true })
  has_runs!: boolean | null;

  @ApiPropertyOptional({ type: 'boolean', nullable: true })
  has_instruction_build!: boolean | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  icon_config!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, format: 'date-time' })
  last_activity_at!: string | null;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  last_chat_message!: string | null;

  @ApiPropertyOptional({ enum: ['deployed', 'not_deployed'] })
  deployment_state!: 'deployed' | 'not_deployed';

  @ApiPropertyOptional({ format: 'date-time', description: 'Present on deployed agents only' })
  deployed_at?: string;
}

export class AgentResponse {
  @ApiProperty({ type: AgentDto })
  agent!: AgentDto;
}

export class AgentListResponse {
  @ApiProperty({ type: [AgentDto] })
  agents!: AgentDto[];

  @ApiProperty({ type: 'string', nullable: true, description: 'Pass as `cursor` for the next page; null on the last page' })
  next_cursor!: string | null;
}

export class ListAgentsQuery {
  @ApiPropertyOptional({ description: 'Only agents in this workspace' })
  @IsOptional()
  @IsString()
  @IsWellFormedText()
  workspace_id?: string;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @Length(1, 512)
  @IsWellFormedText()
  cursor?: string;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: AGENT_LIST_MAX_LIMIT,
    description: `Page size; 0 or absent means ${AGENT_LIST_DEFAULT_LIMIT}`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(AGENT_LIST_MAX_LIMIT)
  limit?: number;

  @ApiPropertyOptional({ description: 'Only agents whose policy type (that of their latest run) is this' })
  @IsOptional()
  @IsString()
  @Length(1, 128)
  @IsWellFormedText()
  policy_type?: string;
}

export class CreateAgentRequest {
  @ApiPropertyOptional({ description: "One of the caller's workspaces; the default workspace when absent" })
  @IsOptional()
  @IsString()
  @IsWellFormedText()
  workspace_id?: string;

  @ApiPropertyOptional({ description: "The caller's own user id (the only owner allowed)" })
  @IsOptional()
  @IsString()
  @IsWellFormedText()
  owner_user_id?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  is_subagent?: boolean;

  @ApiPropertyOptional({ format: 'uuid', description: "One of the caller's agents" })
  @IsOptional()
  @IsUUID()
  derived_from_agent_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Explicit id; a duplicate is a 409' })
  @IsOptional()
  @IsUUID()
  agent_id?: string;
}

export const AGENT_NAME_MAX_LENGTH = 200;
export const AGENT_NAME_EXPLANATION_MAX_LENGTH = 2000;

/** An agent's name as a person (PATCH) or a build run (the runtime's `agent_name` line) sets it. */
export class AgentNameInput {
  @ApiProperty({ minLength: 1, maxLength: AGENT_NAME_MAX_LENGTH })
  @IsString()
  @Length(1, AGENT_NAME_MAX_LENGTH)
  @IsWellFormedText()
  name!: string;

  @ApiPropertyOptional({ type: 'string', nullable: true, maxLength: AGENT_NAME_EXPLANATION_MAX_LENGTH, description: 'Absent or null: none' })
  @IsOptional()
  @IsString()
  @Length(0, AGENT_NAME_EXPLANATION_MAX_LENGTH)
  @IsWellFormedText()
  explanation?: string | null;
}

/** PATCH /v1/agents/{agent_id}: the fields a person may change (an addition to the contract). */
export class UpdateAgentRequest {
  @ApiProperty({ type: AgentNameInput, description: "The agent's name and what it does" })
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => AgentNameInput)
  agent_name!: AgentNameInput;
}

export class MoveAgentRequest {
  @ApiProperty({ description: 'The target workspace' })
  @IsString()
  @Length(1, 128)
  @IsWellFormedText()
  workspace_id!: string;
}
