import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsWellFormedText } from './text.validators';

export const OVERLAP_POLICIES = ['skip', 'allow'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** The spec's Schedule, plus `overlap` and the next fire times. */
export class ScheduleDto {
  @ApiProperty({ format: 'uuid' })
  agent_id!: string;

  @ApiProperty({ description: '7 fields: sec min hour day-of-month month day-of-week year', example: '0 0 9 ? * MON-FRI *' })
  cron!: string;

  @ApiProperty({ type: 'integer', format: 'int64', description: 'Next fire time, epoch milliseconds' })
  next_run!: number;

  @ApiProperty()
  paused!: boolean;

  @ApiProperty({ type: 'integer', format: 'int32', minimum: 0 })
  consecutive_failures!: number;

  @ApiProperty({ description: 'Paused by the service after too many failures in a row' })
  auto_paused!: boolean;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'IANA timezone of the expression' })
  timezone!: string | null;

  @ApiPropertyOptional({ enum: OVERLAP_POLICIES, description: 'While a scheduled run is unfinished, the next fire is skipped or allowed' })
  overlap!: OverlapPolicy;

  @ApiPropertyOptional({ type: 'array', items: { type: 'integer', format: 'int64' }, description: 'The next 5 fire times, epoch ms' })
  upcoming!: number[];
}

export class ScheduleResponse {
  @ApiProperty({ type: ScheduleDto, nullable: true })
  schedule!: ScheduleDto | null;
}

export class ScheduleListResponse {
  @ApiProperty({ type: [ScheduleDto] })
  schedules!: ScheduleDto[];
}

export class PutScheduleRequest {
  @ApiProperty({ description: '7 fields: sec min hour day-of-month month day-of-week year', example: '0 */5 * * * ? *' })
  @IsString()
  @MaxLength(256)
  @IsWellFormedText()
  cron!: string;

  @ApiPropertyOptional({ description: 'IANA timezone; UTC when absent', example: 'Europe/Berlin' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @IsWellFormedText()
  timezone?: string;

  @ApiPropertyOptional({ enum: OVERLAP_POLICIES, default: 'skip' })
  @IsOptional()
  @IsIn(OVERLAP_POLICIES)
  overlap?: OverlapPolicy;
}

/** A cron expression to check, and the next fire times it would have (POST /v1/schedules/preview). */
export class PreviewScheduleRequest {
  @ApiProperty({ description: '7 fields: sec min hour day-of-month month day-of-week year', example: '0 0 9 ? * MON-FRI *' })
  @IsString()
  @MaxLength(256)
  @IsWellFormedText()
  cron!: string;

  @ApiPropertyOptional({ description: 'IANA timezone; UTC when absent', example: 'Europe/Berlin' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  @IsWellFormedText()
  timezone?: string;
}

export class SchedulePreviewResponse {
  @ApiProperty({ type: 'array', items: { type: 'integer', format: 'int64' }, description: 'The next 5 fire times, epoch ms' })
  upcoming!: number[];
}
