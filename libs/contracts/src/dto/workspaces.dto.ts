import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import { IsWellFormedText } from './text.validators';

export const WORKSPACE_NAME_MAX = 128;
export const ICON_CONFIG_MAX = 4096;
/** The longest run retention a workspace may set, in days (100 years). */
export const RUN_RETENTION_DAYS_MAX = 36_500;

export class WorkspaceDto {
  @ApiProperty({ format: 'uuid' })
  workspace_id!: string;

  @ApiProperty()
  name!: string;

  @ApiProperty({ type: 'integer', format: 'int32' })
  position!: number;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  @ApiProperty({ type: 'integer', format: 'int32' })
  agent_count!: number;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  icon_config!: string | null;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    nullable: true,
    description: "Days finished runs of the workspace's agents are kept (0: forever); null: the installation's RUN_RETENTION_DAYS",
  })
  run_retention_days!: number | null;
}

export class WorkspaceResponse {
  @ApiProperty({ type: WorkspaceDto })
  workspace!: WorkspaceDto;
}

export class WorkspaceListResponse {
  @ApiProperty({ type: [WorkspaceDto] })
  workspaces!: WorkspaceDto[];
}

export class CreateWorkspaceRequest {
  @ApiProperty({ minLength: 1, maxLength: WORKSPACE_NAME_MAX })
  @IsString()
  @Length(1, WORKSPACE_NAME_MAX)
  @IsWellFormedText()
  name!: string;
}

export class UpdateWorkspaceRequest {
  @ApiProperty({ minLength: 1, maxLength: WORKSPACE_NAME_MAX })
  @IsString()
  @Length(1, WORKSPACE_NAME_MAX)
  @IsWellFormedText()
  name!: string;

  @ApiPropertyOptional({ maxLength: ICON_CONFIG_MAX })
  @IsOptional()
  @IsString()
  @MaxLength(ICON_CONFIG_MAX)
  @IsWellFormedText()
  icon_config?: string;

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    nullable: true,
    minimum: 0,
    maximum: RUN_RETENTION_DAYS_MAX,
    description: "Days finished runs of the workspace's agents are kept (0: forever); null: the installation default; absent: unchanged",
  })
  @IsOptional() // null too: the installation default
  @IsInt()
  @Min(0)
  @Max(RUN_RETENTION_DAYS_MAX)
  run_retention_days?: number | null;
}

export class DeleteWorkspaceResponse {
  @ApiProperty()
  deleted!: boolean;

  @ApiProperty({ type: 'string', nullable: true })
  error!: string | null;
}

export class ReorderWorkspacesRequest {
  @ApiProperty({ type: [String], description: 'Workspace ids in the desired display order' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  @IsWellFormedText({ each: true })
  workspace_ids!: string[];
}

export class ReorderWorkspacesResponse {
  @ApiProperty()
  success!: boolean;
}
