import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsIn, IsInt, IsISO8601, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsWellFormedText } from './text.validators';

export const OVERLAP_POLICIES = ['skip', 'allow'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** What a schedule does with fire times it missed (scheduler down, overloaded): see docs/schedules.md. */
export const MISFIRE_POLICIES = ['skip', 'fire_once', 'catch_up'] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];
export const DEFAULT_MISFIRE_POLICY: MisfirePolicy = 'fire_once';

/** `catch_up` replays missed fires at most this far back (seconds); the default and the largest window. */
export const CATCH_UP_WINDOW_DEFAULT_SECONDS = 3600;
export const CATCH_UP_WINDOW_MAX_SECONDS = 7 * 24 * 3600;

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

  @ApiPropertyOptional({ type: 'array', items: { type: 'integer', format: 'int64' }, description: 'The next 5 fire times, epoch ms; empty when finished' })
  upcoming!: number[];

  @ApiPropertyOptional({
    description: 'True when the expression has no further fire time (or can no longer be evaluated, see last_error): next_run is then 0 and upcoming empty',
  })
  finished!: boolean;

  @ApiPropertyOptional({ enum: MISFIRE_POLICIES, description: 'What happens to fire times missed by more than the misfire threshold' })
  misfire!: MisfirePolicy;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: 'With misfire catch_up: how far back (seconds) missed fires are replayed; null otherwise',
  })
  catch_up_window!: number | null;

  @ApiPropertyOptional({ type: 'string', nullable: true, description: 'Why the last fire failed, or why the expression cannot be evaluated; null when none' })
  last_error!: string | null;

  @ApiPropertyOptional({ type: 'string', format: 'date-time', nullable: true, description: 'When last_error was recorded (ISO 8601, UTC)' })
  last_error_at!: string | null;
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

  @ApiPropertyOptional({ enum: MISFIRE_POLICIES, default: DEFAULT_MISFIRE_POLICY })
  @IsOptional()
  @IsIn(MISFIRE_POLICIES)
  misfire?: MisfirePolicy;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: CATCH_UP_WINDOW_MAX_SECONDS,
    default: CATCH_UP_WINDOW_DEFAULT_SECONDS,
    description: 'Seconds; only with misfire catch_up',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CATCH_UP_WINDOW_MAX_SECONDS)
  catch_up_window?: number;
}

export class BackfillScheduleRequest {
  @ApiProperty({ format: 'date-time', description: 'First instant of the range (inclusive), ISO 8601', example: '2026-11-01T00:00:00Z' })
  @IsISO8601({ strict: true })
  from!: string;

  @ApiProperty({ format: 'date-time', description: 'Last instant of the range (inclusive), ISO 8601; not in the future', example: '2026-11-02T00:00:00Z' })
  @IsISO8601({ strict: true })
  to!: string;
}

export class BackfilledRun {
  @ApiProperty({ format: 'date-time', description: 'The fire time this run stands for (ISO 8601, UTC)' })
  fire_time!: string;

  @ApiProperty({ format: 'uuid' })
  run_id!: string;
}

export class BackfillScheduleResponse {
  @ApiProperty({ type: [BackfilledRun], description: 'One run per fire time in the range, oldest first; a fire time that already has a run answers that run' })
  runs!: BackfilledRun[];
}

/** A cron expression to check, and the next fire times it would have (POST /v1/schedules/preview): as a PUT takes them. */
export class PreviewScheduleRequest extends PickType(PutScheduleRequest, ['cron', 'timezone'] as const) {}

export class SchedulePreviewResponse {
  @ApiProperty({ type: 'array', items: { type: 'integer', format: 'int64' }, description: 'The next 5 fire times, epoch ms' })
  upcoming!: number[];
}
