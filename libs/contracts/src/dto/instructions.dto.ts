import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsWellFormedText } from './text.validators';

/** Largest instruction content accepted, in characters. */
export const INSTRUCTIONS_MAX_LENGTH = 262_144;
export const PLAN_STEPS_MAX = 200;

export class RestPlanStep {
  @ApiProperty({ maxLength: 500 })
  @IsString()
  @MaxLength(500)
  @IsWellFormedText()
  title!: string;

  @ApiProperty({ maxLength: 10_000 })
  @IsString()
  @MaxLength(10_000)
  @IsWellFormedText()
  description!: string;

  @ApiProperty({ type: [String] })
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(200, { each: true })
  @IsWellFormedText({ each: true })
  tools!: string[];

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0 })
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  order!: number;

  @ApiPropertyOptional({ type: 'string', nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @IsWellFormedText()
  icon?: string | null;
}

export class InstructionsSummary {
  @ApiProperty({ format: 'uuid' })
  agent_id!: string;

  @ApiProperty()
  user_id!: string;

  @ApiProperty()
  user_email!: string;

  @ApiProperty()
  content!: string;

  @ApiProperty({ description: 'Empty when none was given' })
  source_id!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;

  @ApiProperty({ description: 'Where this version is kept: agents/{agent_id}/instructions/{version id}' })
  storage_key!: string;

  @ApiProperty({ description: 'Hex SHA-256 of content' })
  content_hash!: string;

  @ApiPropertyOptional({ type: [RestPlanStep] })
  plan_steps?: RestPlanStep[];
}

export class InstructionsResponse {
  @ApiProperty({ type: InstructionsSummary, nullable: true })
  instructions!: InstructionsSummary | null;
}

export class PutInstructionsRequest {
  @ApiProperty({ maxLength: INSTRUCTIONS_MAX_LENGTH })
  @IsString()
  @MaxLength(INSTRUCTIONS_MAX_LENGTH)
  @IsWellFormedText()
  content!: string;

  @ApiPropertyOptional({ description: 'For example api or builder; api when absent', maxLength: 64 })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  @IsWellFormedText()
  source_type?: string;

  @ApiPropertyOptional({ maxLength: 256 })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  @IsWellFormedText()
  source_id?: string;

  @ApiPropertyOptional({ type: [RestPlanStep] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(PLAN_STEPS_MAX)
  // ValidateNested alone lets an array item through (it validates the array's items instead): [[]] was stored as a plan.
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => RestPlanStep)
  plan_steps?: RestPlanStep[];
}

export class InstructionVersion {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 0 })
  id!: number;

  @ApiProperty()
  content!: string;

  @ApiProperty()
  source_type!: string;

  @ApiProperty()
  source_id!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty()
  storage_key!: string;

  @ApiProperty()
  content_hash!: string;
}

export class InstructionHistoryResponse {
  @ApiProperty({ type: [InstructionVersion], description: 'Newest first' })
  instruction_versions!: InstructionVersion[];
}

export class InstructionHistoryQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'At most this many versions, newest first; 0 or absent means every kept version (an agent keeps its newest 50 by default)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  limit?: number;
}
